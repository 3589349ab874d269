// Bot strategies: choose a move from what one seat may see — its view and its prompt —
// never from the true state. The same strategies play server-side seats, network bots
// (parlor-bot, parlor-load) and self-play.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "games/core/game.h"
#include "games/core/rng.h"

namespace parlor::bots {

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;
  // A move for the seat whose `view` and `prompt` ({"legal":[...]} or {"choose":{...}}) these
  // are. Returns null only when the prompt offers nothing.
  virtual Json choose(const Json& view, const Json& prompt, Rng& rng) = 0;
  // False when choose() ignores the view, so a caller may pass null instead of building one
  // (the simulator's fast path for random play).
  virtual bool reads_view() const { return true; }
};

// The strategy called `name` for game `kind`, or null when there is none: "random" for every
// kind, "greedy" for the kinds with a heuristic (bots/greedy_<kind>.cpp).
std::unique_ptr<Strategy> make_strategy(std::string_view name, std::string_view kind);
// The strongest strategy there is for `kind`: greedy where the kind has one, else random.
// What stands in for an absent player and moves when a turn clock runs out.
std::unique_ptr<Strategy> make_best_strategy(std::string_view kind);
// Names accepted by make_strategy for `kind`.
std::vector<std::string> strategy_names(std::string_view kind);

// A uniformly random legal move (or a uniformly random `count`-subset for a choose prompt).
Json random_move(const Json& prompt, Rng& rng);

// The least a seat can do: pass when the prompt offers it, else the first legal move listed
// (or the first `count` cards of a choose prompt). Null when the prompt offers nothing.
Json pass_or_first_legal(const Json& prompt);

}  // namespace parlor::bots
