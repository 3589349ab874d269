#include "tests/noninterference/worlds.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>
#include <variant>

#include "games/testing/self_play.h"
#include "protocol/replay.h"
#include "server/replay.h"

namespace parlor::testing {

namespace {

using History = std::vector<std::pair<Seat, Json>>;

std::string viewer_name(Seat viewer) {
  return viewer == kSpectator ? "the spectator" : "seat " + std::to_string(viewer);
}

std::string shorten(const std::string& text) {
  return text.size() <= 600 ? text : text.substr(0, 600) + "...";
}

// What `viewer` has seen by the end of `history`: the locations it sees from the start,
// every item the rules show it at some step, and every item a move names (a card played, a
// card bought; a move naming a card nobody else sees, such as a discard, keeps it in place
// too, since the same move must stay legal in every world).
std::set<int> seen_by(const WorldRules& rules, const Layout& layout, const History& history,
                      Seat viewer, std::uint64_t game_seed) {
  std::set<int> seen;
  for (std::size_t location = 0; location < layout.size(); ++location) {
    if (rules.sees_location(static_cast<int>(location), viewer)) {
      seen.insert(layout[location].begin(), layout[location].end());
    }
  }
  auto game = rules.build(layout, game_seed);
  const auto add = [&](const std::set<int>& items) { seen.insert(items.begin(), items.end()); };
  add(rules.visible_items(*game, viewer));
  for (const auto& [seat, move] : history) {
    add(rules.named_items(move));
    game->apply(seat, move);
    add(rules.visible_items(*game, viewer));
  }
  return seen;
}

// `layout` with every item `viewer` has not seen, in the locations it does not see, dealt
// again at random among those places (each location keeps its size; seen items stay put).
// Returns how many items moved.
int resample(const WorldRules& rules, Layout& layout, const std::set<int>& seen, Seat viewer,
             Rng& rng) {
  std::map<int, std::pair<std::vector<int*>, Items>> pools;  // places and their items
  for (std::size_t location = 0; location < layout.size(); ++location) {
    if (rules.sees_location(static_cast<int>(location), viewer)) continue;
    auto& [places, items] = pools[rules.pool(static_cast<int>(location))];
    for (int& item : layout[location]) {
      if (seen.contains(item)) continue;
      places.push_back(&item);
      items.push_back(item);
    }
  }
  int moved = 0;
  for (auto& [pool, places_and_items] : pools) {
    auto& [places, items] = places_and_items;
    rng.shuffle(std::span<int>(items));
    for (std::size_t i = 0; i < places.size(); ++i) {
      if (*places[i] != items[i]) ++moved;
      *places[i] = items[i];
    }
  }
  return moved;
}

// The first place two observations differ, or "".
std::string first_difference(const Observation& a, const Observation& b) {
  const auto compare = [](const char* what, const std::vector<std::string>& x,
                          const std::vector<std::string>& y) -> std::string {
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      if (x[i] != y[i]) {
        return std::string(what) + " after move " + std::to_string(i) +
               ":\n  original: " + shorten(x[i]) + "\n  resampled: " + shorten(y[i]);
      }
    }
    if (x.size() != y.size()) return std::string(what) + ": different step counts";
    return "";
  };
  for (const auto& [what, x, y] :
       {std::tuple{"view", &a.views, &b.views}, std::tuple{"prompt", &a.prompts, &b.prompts},
        std::tuple{"events", &a.events, &b.events}}) {
    if (auto difference = compare(what, *x, *y); !difference.empty()) return difference;
  }
  if (a.replay != b.replay) {
    return "replay:\n  original: " + shorten(a.replay) + "\n  resampled: " + shorten(b.replay);
  }
  return "";
}

}  // namespace

Observation observe(const WorldRules& rules, const Game& initial, const History& moves,
                    Seat viewer) {
  Observation out;
  auto game = initial.clone();
  const auto look = [&] {
    std::string view;
    game->write_view(viewer, view);
    out.views.push_back(std::move(view));
    std::string prompt;
    if (viewer != kSpectator) game->write_prompt(viewer, prompt);
    out.prompts.push_back(std::move(prompt));
    out.to_act.push_back(Json(game->to_act()).dump());
  };
  look();
  for (const auto& [seat, move] : moves) {
    const MoveResult result = game->apply(seat, move);
    if (!result.ok()) {
      out.events.push_back("refused: " + result.code());
      return out;
    }
    out.events.push_back(result.events_text());
    look();
  }
  // The replay the server would send the viewer of a room that played these moves.
  server::RoomHistory history;
  history.room.id = "room";
  history.room.kind = std::string(initial.kind());
  history.room.seats = initial.seat_count();
  history.room.game_options = rules.options();
  server::GameRecord record;
  record.game_number = 1;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    server::MoveRecord move;
    move.room_id = history.room.id;
    move.game_number = 1;
    move.seq = static_cast<std::int64_t>(i) + 1;
    move.seat = moves[i].first;
    move.move = moves[i].second;
    record.moves.push_back(std::move(move));
  }
  const auto replay = server::build_replay(
      history, record, viewer == kSpectator ? std::nullopt : std::optional<Seat>(viewer),
      initial.clone());
  if (const auto* built = std::get_if<protocol::Replay>(&replay)) {
    out.replay = protocol::encode_replay(nullptr, *built);
  } else {
    out.replay = "refused: " + std::get<server::ReplayRefusal>(replay).message;
  }
  return out;
}

std::string check_non_interference(const WorldRules& rules, std::uint64_t seed,
                                   int worlds_per_position, NonInterferenceStats& stats,
                                   const Observer& observer) {
  Rng rng(seed);
  const Layout original = rules.deal(rng);
  const std::uint64_t game_seed = rng.next();
  const std::string where = rules.name() + ", seed " + std::to_string(seed);

  // A random history of legal moves, within the first deal.
  History history;
  {
    auto game = rules.build(original, game_seed);
    while (!game->finished()) {
      const std::vector<Seat> seats = game->to_act();
      if (seats.empty()) return where + ": nobody to act in an unfinished game";
      const Seat seat = seats[rng.uniform(seats.size())];
      const Json legal = game->legal_moves(seat);
      Json move;
      if (!legal.empty()) {
        move = legal[rng.uniform(legal.size())];
      } else if (const Json prompt = game->prompt(seat); prompt.contains("choose")) {
        move = move_from_choose(prompt["choose"], rng);  // a discard: any 6 of 18
      } else {
        return where + ": seat " + std::to_string(seat) + " has no legal move";
      }
      auto next = game->clone();
      if (!next->apply(seat, move).ok()) return where + ": a legal move is refused: " + move.dump();
      if (!rules.in_first_deal(*next)) break;
      game = std::move(next);
      history.emplace_back(seat, move);
    }
  }

  // Early positions leave the most to resample; later ones show more of the game.
  std::vector<std::size_t> lengths;
  for (const std::size_t length :
       {std::size_t{0}, history.size() / 3, 2 * history.size() / 3, history.size()}) {
    if (lengths.empty() || lengths.back() != length) lengths.push_back(length);
  }
  std::vector<Seat> viewers{kSpectator};
  for (Seat seat = 0; seat < rules.seats(); ++seat) viewers.push_back(seat);

  for (const std::size_t length : lengths) {
    const History prefix(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(length));
    for (const Seat viewer : viewers) {
      ++stats.positions;
      const std::set<int> seen = seen_by(rules, original, prefix, viewer, game_seed);
      const Observation base = observer(rules, *rules.build(original, game_seed), prefix, viewer);
      int compared = 0;
      // Most resampled worlds agree with a short history; a long one (voids shown, the
      // lowest card led) turns many down, so several tries per world are allowed.
      for (int attempt = 0; attempt < worlds_per_position * 10 && compared < worlds_per_position;
           ++attempt) {
        Layout world = original;
        const int moved = resample(rules, world, seen, viewer, rng);
        if (moved == 0) break;  // nothing is hidden from this viewer any more
        const Observation other = observer(rules, *rules.build(world, game_seed), prefix, viewer);
        // A world where the same moves are not all legal, or where another seat is to act,
        // is one the viewer can tell apart by the rules: not a world to compare.
        if (other.events.size() != prefix.size() ||
            (!other.events.empty() && other.events.back().starts_with("refused: ")) ||
            other.to_act != base.to_act) {
          ++stats.worlds_rejected;
          continue;
        }
        ++compared;
        ++stats.worlds_compared;
        stats.items_resampled += moved;
        stats.steps_compared += static_cast<std::int64_t>(prefix.size()) + 1;
        if (auto difference = first_difference(base, other); !difference.empty()) {
          return where + ", " + std::to_string(length) + " moves, " + viewer_name(viewer) +
                 " tells two worlds apart (" + std::to_string(moved) +
                 " hidden items moved) by its " + difference;
        }
      }
    }
  }
  return "";
}

}  // namespace parlor::testing
