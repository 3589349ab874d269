// Splendor worlds: the hidden cards are the order of the three decks and the other players'
// blind reserves. A level's unseen cards are its catalogue cards less those face up, bought
// (the public buy events name them), and reserved where the seat saw the card (its own
// reserves and face-up reserves); they are shuffled, the others' blind reserves of that level
// drawn from them and the rest left as the deck. Everything else comes from the view as is.
//
// The search looks two rounds past the seat's turn: after the move tried, every seat plays on by
// the greedy heuristic (random Splendor play says nothing about a move), and the world is
// scored by how the seat then stands against the best opponent; what the decks turn up is
// averaged over worlds.
#include <algorithm>
#include <string>
#include <vector>

#include "bots/determinize.h"
#include "bots/view_reading.h"
#include "games/splendor/splendor.h"

namespace parlor::bots {
namespace {

using splendor::SplendorGame;

// Every token kind named in `value` ({"white":1,...}); unnamed kinds are 0.
template <std::size_t N>
std::array<int, N> read_counts(const Json& value) {
  std::array<int, N> counts{};
  if (!value.is_object()) return counts;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const auto token = splendor::token_from_name(it.key());
    const Json& count = it.value();
    if (token && static_cast<std::size_t>(*token) < N && count.is_number_integer()) {
      counts[static_cast<std::size_t>(*token)] = count.get<int>();
    }
  }
  return counts;
}

std::vector<int> read_ids(const Json& value) {
  std::vector<int> ids;
  if (!value.is_array()) return ids;
  for (const Json& id : value) {
    if (id.is_number_integer()) ids.push_back(id.get<int>());
  }
  return ids;
}

// How far a playout looks: the seat's own turn, then every seat's turns of two more rounds.
constexpr int kHorizonRounds = 2;

bool splendor_turn_over(const Game& root, const Game& world) {
  const auto& start = static_cast<const SplendorGame&>(root).state();
  const auto& now = static_cast<const SplendorGame&>(world).state();
  return world.finished() || now.turns >= start.turns + kHorizonRounds * now.seats;
}

// How a player stands: prestige, then (worth less) the permanent bonuses that make later cards
// cheaper, nobles' progress and tokens in hand.
double standing(const splendor::PlayerState& player, const std::vector<int>& nobles) {
  double value = player.points;
  for (int bonus : player.bonuses) value += 0.6 * bonus;
  for (int noble : nobles) {
    const auto& needs = splendor::noble_def(noble).needs;
    int missing = 0;
    for (std::size_t c = 0; c < needs.size(); ++c) {
      missing += std::max(0, needs[c] - player.bonuses[c]);
    }
    value += 0.3 * std::max(0, 6 - missing);
  }
  return value + 0.1 * player.token_count() + 0.1 * static_cast<double>(player.reserved.size());
}

// The seat's standing over the best opponent's, squashed into [0, 1]; a finished game is won
// or lost.
double splendor_reward(const Game& /*root*/, const Game& world, Seat seat) {
  const auto& now = static_cast<const SplendorGame&>(world).state();
  if (world.finished()) {
    const Json winners = world.result().value("winners", Json::array());
    return std::find(winners.begin(), winners.end(), Json(seat)) != winners.end() ? 1.0 : 0.0;
  }
  const double mine = standing(now.player(seat), now.nobles);
  double best = -1e9;
  for (int s = 0; s < now.seats; ++s) {
    if (s != seat) best = std::max(best, standing(now.player(s), now.nobles));
  }
  return std::clamp(0.5 + (mine - best) / 20.0, 0.0, 1.0);
}

bool splendor_searches(const Json& view) {
  return view.is_object() && view.value("phase", "") == "play";
}

}  // namespace

std::unique_ptr<Game> sample_splendor_world(const Json& view, std::span<const Json> events,
                                            Rng& rng) {
  const Seat you = read_int(view, "you", -1);
  const Json& players = field(view, "players");
  const auto seats = static_cast<int>(players.size());
  if (you < 0 || you >= seats || !field(view, "rows").is_array()) return nullptr;

  splendor::State state;
  state.seats = seats;
  state.bank = read_counts<splendor::kTokenKinds>(field(view, "bank"));
  state.nobles = read_ids(field(view, "nobles"));
  state.current = read_int(view, "turn", you);
  const std::string phase = view.value("phase", "play");
  state.phase = phase == "return"  ? splendor::Phase::kReturn
                : phase == "noble" ? splendor::Phase::kNoble
                                   : splendor::Phase::kPlay;
  state.turns = (read_int(view, "round", 1) - 1) * seats + state.current;
  state.final_round = view.value("final_round", false);

  std::vector<bool> seen(splendor::kCardCount + 1, false);
  for (int level = 0; level < splendor::kLevels; ++level) {
    const Json& row = item(field(view, "rows"), static_cast<std::size_t>(level));
    for (int slot = 0; slot < splendor::kSlotsPerLevel; ++slot) {
      const Json& id = item(row, static_cast<std::size_t>(slot));
      const int card = id.is_number_integer() ? id.get<int>() : 0;
      state.rows[static_cast<std::size_t>(level)][static_cast<std::size_t>(slot)] = card;
      seen[static_cast<std::size_t>(card)] = true;
    }
  }
  state.players.resize(static_cast<std::size_t>(seats));
  for (const Json& event : events) {
    const Seat seat = read_int(event, "seat", -1);
    if (field(event, "type") != "buy" || seat < 0 || seat >= seats) continue;
    const int card = read_int(event, "card", 0);
    if (card < 1 || card > splendor::kCardCount) continue;
    state.player(seat).bought.push_back(card);
    seen[static_cast<std::size_t>(card)] = true;
  }
  // Per level, the blind reserves the seat has not seen: (seat, index in its reserve).
  std::array<std::vector<std::pair<int, std::size_t>>, splendor::kLevels> unseen_reserves;
  for (int s = 0; s < seats; ++s) {
    const Json& p = players[static_cast<std::size_t>(s)];
    splendor::PlayerState& player = state.player(s);
    player.tokens = read_counts<splendor::kTokenKinds>(field(p, "tokens"));
    player.bonuses = read_counts<splendor::kColorCount>(field(p, "bonuses"));
    player.points = read_int(p, "points", 0);
    player.nobles = read_ids(field(p, "nobles"));
    const Json& reserves = field(p, "reserved");
    if (!reserves.is_array()) continue;
    for (const Json& reserved : reserves) {
      const int card = read_int(reserved, "card", 0);
      const int level = read_int(reserved, "level", 1) - 1;
      if (level < 0 || level >= splendor::kLevels) return nullptr;
      if (card == 0) {
        unseen_reserves[static_cast<std::size_t>(level)].emplace_back(s, player.reserved.size());
      }
      seen[static_cast<std::size_t>(card)] = true;
      player.reserved.push_back({card, field(reserved, "blind") == true});
    }
  }
  for (int level = 0; level < splendor::kLevels; ++level) {
    std::vector<int> unseen;
    for (const auto& card : splendor::catalogue().cards) {
      if (card.level == level + 1 && !seen[static_cast<std::size_t>(card.id)]) {
        unseen.push_back(card.id);
      }
    }
    rng.shuffle(std::span<int>(unseen));
    const auto& hidden = unseen_reserves[static_cast<std::size_t>(level)];
    const int deck = read_int_at(field(view, "decks"), static_cast<std::size_t>(level), 0);
    // Without the whole history some bought cards are not known: the spare cards are dropped.
    if (unseen.size() < hidden.size() + static_cast<std::size_t>(deck)) return nullptr;
    for (std::size_t i = 0; i < hidden.size(); ++i) {
      state.player(hidden[i].first).reserved[hidden[i].second].card = unseen[i];
    }
    state.decks[static_cast<std::size_t>(level)].assign(
        unseen.begin() + static_cast<std::ptrdiff_t>(hidden.size()),
        unseen.begin() + static_cast<std::ptrdiff_t>(hidden.size()) + deck);
  }
  return std::make_unique<SplendorGame>(std::move(state));
}

const IsmctsGame kIsmctsSplendor = {
    sample_splendor_world, splendor_turn_over, splendor_reward, splendor_searches, 100, true};

}  // namespace parlor::bots
