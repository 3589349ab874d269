// Fuzz target: every built-in game's apply(), driven by choices among legal moves, legal moves
// with a field changed, and arbitrary JSON, from any seat. The input's first bytes pick the
// game, the seat count and the deal's seed; every later byte is a choice. The oracle is the
// engine contract of games/core/game.h, as the self-play checker holds it:
//  - a move from legal_moves() is accepted; a seat not in to_act() is refused;
//  - a refusal leaves the state exactly as it was (its hash, of the full state);
//  - every view and prompt serializes, write_view/write_prompt write dump()'s bytes;
//  - a clone hashes equal, and replaying the accepted moves reaches the same state.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "games/core/replay.h"
#include "games/core/rng.h"
#include "games/registry.h"
#include "games/testing/self_play.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using parlor::Json;
using parlor::Seat;
using parlor::fuzz::FuzzInput;
using parlor::fuzz::require;

// A string for a move: moves reach engines through the request decoder, which lets only UTF-8
// through, so bytes past ASCII become '?'.
std::string move_text(FuzzInput& in) {
  std::string text = in.text();
  for (char& c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) c = '?';
  }
  return text;
}

// Values a changed field may take: the types and edge values engines must refuse or handle.
Json fuzzed_value(FuzzInput& in) {
  switch (in.pick(10)) {
    case 0:
      return nullptr;
    case 1:
      return static_cast<std::int64_t>(in.u64());
    case 2:
      return static_cast<int>(in.byte()) - 128;
    case 3:
      return move_text(in);
    case 4:
      return Json::array();
    case 5:
      return Json::object();
    case 6:
      return in.byte() % 2 == 0;
    case 7:
      return 1.5;
    case 8:
      return Json::array({"AS", "AS"});
    default: {
      Json parsed = Json::parse(in.text(), nullptr, /*allow_exceptions=*/false);
      return parsed.is_discarded() ? Json() : parsed;
    }
  }
}

// `move` with one value somewhere inside it replaced, removed or added to.
void change_somewhere(Json& move, FuzzInput& in) {
  Json* at = &move;
  while ((at->is_object() || at->is_array()) && !at->empty() && in.pick(3) != 0) {
    auto it = at->begin();
    std::advance(it, static_cast<std::ptrdiff_t>(in.pick(at->size())));
    at = &*it;
  }
  if (at->is_object() && in.pick(2) == 0 && !at->empty()) {
    at->erase(at->begin());
  } else if (at->is_array() && in.pick(2) == 0) {
    at->push_back(fuzzed_value(in));
  } else {
    *at = fuzzed_value(in);
  }
}

bool contains(const std::vector<Seat>& seats, Seat seat) {
  return std::find(seats.begin(), seats.end(), seat) != seats.end();
}

void check_views(const parlor::Game& game) {
  for (Seat seat = parlor::kSpectator; seat < game.seat_count(); ++seat) {
    std::string view;
    game.write_view(seat, view);
    require(view == game.view(seat).dump(), "write_view differs from view().dump()");
    std::string prompt;
    game.write_prompt(seat, prompt);
    require(prompt == game.prompt(seat).dump(), "write_prompt differs from prompt().dump()");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const auto& games = parlor::game_registry();
  const parlor::GameInfo& info = games[in.pick(games.size())];
  const int seats = info.min_seats + static_cast<int>(in.pick(info.max_seats - info.min_seats + 1));
  const std::uint64_t seed = in.u64();
  Json options;
  std::string error;
  auto game = parlor::create_game(info, Json::object(), seats, seed, &options, error);
  require(game != nullptr, info.kind + ": the default options do not deal: " + error);

  std::vector<parlor::ReplayMove> log;
  parlor::Rng rng(seed);
  for (int step = 0; step < 200 && !in.empty() && !game->finished(); ++step) {
    const std::vector<Seat> to_act = game->to_act();
    require(!to_act.empty(), info.kind + ": no seat to act in an unfinished game");
    Seat seat = to_act[in.pick(to_act.size())];
    const Json legal = game->legal_moves(seat);
    Json move;
    bool must_accept = false;
    switch (in.pick(4)) {
      case 0:
      case 1:  // a legal move, or one built from the prompt's choose form
        if (!legal.empty()) {
          move = legal[in.pick(legal.size())];
          must_accept = true;
        } else if (const Json prompt = game->prompt(seat); prompt.contains("choose")) {
          move = parlor::testing::move_from_choose(prompt["choose"], rng);
        }
        break;
      case 2:  // a legal move with something changed
        move = legal.empty() ? Json::object({{"action", move_text(in)}})
                             : legal[in.pick(legal.size())];
        change_somewhere(move, in);
        break;
      default:  // anything, from any seat
        seat = static_cast<Seat>(in.pick(seats));
        move = fuzzed_value(in);
        break;
    }

    const std::uint64_t hash = game->state_hash();  // of full_state(): hidden cards too
    const parlor::MoveResult result = game->apply(seat, move);
    if (!result.ok()) {
      require(!must_accept, info.kind + ": a legal move was refused: " + move.dump());
      require(game->state_hash() == hash,
              info.kind + ": a refused move changed the state: " + move.dump());
      continue;
    }
    require(contains(to_act, seat), info.kind + ": a seat not to act moved: " + move.dump());
    (void)result.events_text();
    check_views(*game);
    require(game->clone()->state_hash() == game->state_hash(), info.kind + ": clone differs");
    log.push_back({seat, move, game->state_hash()});
  }

  const parlor::ReplayOutcome replayed = parlor::replay_log(info, options, seats, seed, log);
  require(replayed.ok(), info.kind + ": the accepted moves do not replay: " +
                             (replayed.broken ? replayed.broken->describe() : std::string()));
  require(replayed.game->state_hash() == game->state_hash(), info.kind + ": replay differs");
  if (game->finished()) (void)game->result().dump();
  return 0;
}
