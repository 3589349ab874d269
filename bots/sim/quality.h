// CardStock-style quality heuristics over one game's score trajectory: the standing of every
// side after every move (see standings.h) and the number of legal moves at every decision.
// README.md defines each measure; all but lead changes lie in [0, 1] (convergence can be
// negative when choices widen as the game goes on).
#pragma once

#include <cstdint>
#include <vector>

namespace parlor::sim {

// One game as the heuristics see it.
class Trajectory {
 public:
  void reset(int sides) {
    sides_ = sides;
    standings_.clear();
    branching_.clear();
  }
  // Appends the standings after a move (`sides` values).
  void add_step(const std::vector<double>& standings) {
    standings_.insert(standings_.end(), standings.begin(), standings.end());
  }
  void add_decision(double legal_moves) { branching_.push_back(legal_moves); }

  int sides() const { return sides_; }
  std::size_t steps() const { return sides_ == 0 ? 0 : standings_.size() / sides_; }
  double at(std::size_t step, int side) const {
    return standings_[step * static_cast<std::size_t>(sides_) + static_cast<std::size_t>(side)];
  }
  const std::vector<double>& branching() const { return branching_; }

 private:
  int sides_ = 0;
  std::vector<double> standings_;  // steps x sides
  std::vector<double> branching_;  // per decision
};

struct GameQuality {
  double lead_changes = 0;
  double drama = 0;
  double security = 0;
  double order = 0;
  double spread = 0;
  double convergence = 0;
};

// `winners[side]` is true for the sides that won.
GameQuality measure_game(const Trajectory& trajectory, const std::vector<bool>& winners);

// 1 when every seat wins equally often, 0 when one seat wins every game.
double fairness(const std::vector<std::int64_t>& wins_per_seat);

}  // namespace parlor::sim
