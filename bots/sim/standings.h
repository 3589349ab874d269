// What the simulator knows about each game beyond the Game contract:
//
//  - sides: who wins together (the two partnerships in Spades and Bid Whist, else one side per
//    seat) — the quality heuristics follow sides, since partners always share a standing;
//  - a standing per side after every move, the "score trajectory" the heuristics read
//    (README.md defines each game's standing);
//  - an optional fast path for a uniformly random move that skips JSON (Big Two), drawing from
//    the random source exactly as `random_move` over the prompt's `legal` list would.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "games/core/game.h"
#include "games/core/rng.h"

namespace parlor::sim {

class GameProbe {
 public:
  virtual ~GameProbe() = default;

  virtual int sides(int seats) const { return seats; }
  virtual int side_of(Seat seat) const { return seat; }
  // Standing of each side now (out has sides() entries).
  virtual void standings(const Game& game, std::vector<double>& out) const = 0;
  // Applies a uniformly random legal move for `seat` without building JSON and returns how many
  // legal moves there were; nullopt when this game has no such path.
  virtual std::optional<int> fast_random_move(Game&, Seat, Rng&) const { return std::nullopt; }
};

// The probe for a kind (a generic one reading the spectator view's "scores" for unknown kinds).
std::unique_ptr<GameProbe> make_probe(std::string_view kind);

}  // namespace parlor::sim
