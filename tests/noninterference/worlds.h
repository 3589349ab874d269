// Non-interference: what a seat (or a spectator) is shown must not depend on anything it
// cannot see. The check builds "worlds" that agree with everything a viewer has seen and
// differ in what it has not (other hands, the undealt cards, the kitty, deck order), plays
// the same moves in each, and requires the viewer's views, prompts, the public events and
// its replay to be byte-identical across them. A leak of a count, an order or a derived
// field shows up as a difference even when no hidden card is ever named.
//
// A game takes part through a WorldRules: how its first deal is laid out (locations of
// items: hands, undealt cards, decks), how to build a game from a layout, and which items a
// viewer sees by the rules at each moment (read from full_state(), never from a view).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "games/core/game.h"
#include "games/core/game_info.h"
#include "games/core/rng.h"

namespace parlor::testing {

// One location of a deal (a hand, the undealt cards, a deck from bottom to top) and its
// items: card indices, or a game's own card ids.
using Items = std::vector<int>;
using Layout = std::vector<Items>;

class WorldRules {
 public:
  virtual ~WorldRules() = default;

  virtual std::string name() const = 0;
  virtual const GameInfo& info() const = 0;
  // Normalized options (as a room stores them) and the seat count.
  virtual Json options() const = 0;
  virtual int seats() const = 0;

  // A random first deal, laid out as the game deals it.
  virtual Layout deal(Rng& rng) const = 0;
  // The game whose first deal is `layout`; what the game draws later comes from `seed`.
  virtual std::unique_ptr<Game> build(const Layout& layout, std::uint64_t seed) const = 0;
  // Whether `viewer` (kSpectator: anyone) sees location `location` of the deal from the start.
  virtual bool sees_location(int location, Seat viewer) const = 0;
  // Hidden items move only between locations of the same pool: any card may be in any hand
  // or among the undealt cards (one pool, the default), but a level-1 card is never in the
  // level-2 deck.
  virtual int pool(int /*location*/) const { return 0; }
  // Every item `viewer` may see in `game` now, by the rules, read from full_state().
  virtual std::set<int> visible_items(const Game& game, Seat viewer) const = 0;
  // Items a move names (the cards played, the card bought).
  virtual std::set<int> named_items(const Json& move) const = 0;
  // Whether `game` is still playing the first deal (the one a layout describes).
  virtual bool in_first_deal(const Game& game) const = 0;
};

// The rules of the five games, with the seat counts and options the test covers.
std::vector<std::unique_ptr<WorldRules>> all_world_rules();

struct NonInterferenceStats {
  int positions = 0;        // (history, length, viewer) checked
  int worlds_compared = 0;  // resampled worlds that agreed with the history and were compared
  int worlds_rejected = 0;  // resampled worlds in which the same moves were not all legal
  int items_resampled = 0;  // hidden items moved, summed over compared worlds
  std::int64_t steps_compared = 0;
};

// What `viewer` is shown at every step of a history: views, prompts, events, the replay.
struct Observation {
  std::vector<std::string> views;
  std::vector<std::string> prompts;
  std::vector<std::string> events;
  std::vector<std::string> to_act;
  std::string replay;
};

// Plays a seeded random history of the first deal and, at several lengths and for every
// viewer, compares the original world with resampled ones. Returns "" when every compared
// world shows the viewer the same bytes, else the first difference (with the seed).
// `observe` is what is compared (tests pass a leaky one to show the check can fail).
using Observer =
    std::function<Observation(const WorldRules& rules, const Game& initial,
                              const std::vector<std::pair<Seat, Json>>& moves, Seat viewer)>;
std::string check_non_interference(const WorldRules& rules, std::uint64_t seed,
                                   int worlds_per_position, NonInterferenceStats& stats,
                                   const Observer& observe);

// The observer the test uses: views and prompts as the server writes them (write_view,
// write_prompt), each move's events, to_act, and the replay the server builds for the
// viewer (server/replay.h) encoded as the client receives it.
Observation observe(const WorldRules& rules, const Game& initial,
                    const std::vector<std::pair<Seat, Json>>& moves, Seat viewer);

}  // namespace parlor::testing
