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
  // The public events of every accepted move, whoever made it, in order. Strategies that read
  // the game's history (ismcts: which cards are gone, who cannot follow suit) keep them; the
  // others ignore them. Callers that never call it get a strategy that plays from the view.
  virtual void observe(const Json& /*events*/) {}
  // False when observe() ignores its events, so callers may skip collecting them.
  virtual bool observes() const { return false; }
  // A new game begins at this seat: forget the events of the last one.
  virtual void reset() {}
};

// The strategy called `name` for game `kind`, or null when there is none: "random" for every
// kind, "greedy" for the kinds with a heuristic (bots/greedy_<kind>.cpp), "ismcts" for the kinds
// with a determinization (bots/determinize_<kind>.cpp), "ismcts:N" for a search of N
// iterations a decision instead of the default. The difficulty levels name the same
// strategies: "easy" is random, "medium" greedy, "hard" ismcts (see difficulty_strategy).
std::unique_ptr<Strategy> make_strategy(std::string_view name, std::string_view kind);
// The strongest strategy there is for `kind`: greedy where the kind has one, else random.
// What stands in for an absent player and moves when a turn clock runs out.
std::unique_ptr<Strategy> make_best_strategy(std::string_view kind);
// The strategy a difficulty level stands for ("easy", "medium", "hard"), or `name` unchanged.
std::string_view difficulty_strategy(std::string_view name);
// True when the strategy called `name` searches (it may think for tens of milliseconds a move),
// so a host should run it off any thread that serves other players.
bool strategy_searches(std::string_view name);
// Names accepted by make_strategy for `kind`.
std::vector<std::string> strategy_names(std::string_view kind);

// A uniformly random legal move (or a uniformly random `count`-subset for a choose prompt).
Json random_move(const Json& prompt, Rng& rng);

// The least a seat can do: pass when the prompt offers it, else the first legal move listed
// (or the first `count` cards of a choose prompt). Null when the prompt offers nothing.
Json pass_or_first_legal(const Json& prompt);

}  // namespace parlor::bots
