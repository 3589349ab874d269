#include "bots/sim/quality.h"

#include <algorithm>
#include <cmath>

namespace parlor::sim {
namespace {

struct StepShape {
  double top = 0;     // best standing
  double bottom = 0;  // worst standing
  int leader = -1;    // the side alone at the top, -1 on a tie
};

StepShape shape_of(const Trajectory& t, std::size_t step) {
  StepShape s{t.at(step, 0), t.at(step, 0), 0};
  for (int side = 1; side < t.sides(); ++side) {
    const double v = t.at(step, side);
    if (v > s.top) {
      s.top = v;
      s.leader = side;
    } else if (v == s.top) {
      s.leader = -1;
    }
    s.bottom = std::min(s.bottom, v);
  }
  return s;
}

// The best standing among the sides other than `leader`.
double second_best(const Trajectory& t, std::size_t step, int leader) {
  double best = -INFINITY;
  for (int side = 0; side < t.sides(); ++side) {
    if (side != leader) best = std::max(best, t.at(step, side));
  }
  return best;
}

}  // namespace

GameQuality measure_game(const Trajectory& t, const std::vector<bool>& winners) {
  GameQuality q;
  const std::size_t steps = t.steps();
  if (steps == 0 || t.sides() < 2) return q;
  const std::size_t last = steps - 1;

  int previous_leader = -1;
  double drama_sum = 0;
  double security_sum = 0;
  double order_sum = 0;
  double largest = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    const StepShape s = shape_of(t, step);
    const double range = s.top - s.bottom;
    for (int side = 0; side < t.sides(); ++side)
      largest = std::max(largest, std::abs(t.at(step, side)));

    // Lead changes: the sole leader differs from the previous sole leader.
    if (s.leader >= 0) {
      if (previous_leader >= 0 && s.leader != previous_leader) q.lead_changes += 1;
      previous_leader = s.leader;
    }
    if (range <= 0) continue;  // everyone level: no drama, no security, no order yet

    // Drama: how far the eventual (best-placed) winner trails the top, as a share of the range.
    double winner_best = -INFINITY;
    for (int side = 0; side < t.sides(); ++side) {
      if (winners[static_cast<std::size_t>(side)])
        winner_best = std::max(winner_best, t.at(step, side));
    }
    if (winner_best > -INFINITY) drama_sum += (s.top - winner_best) / range;

    // Security: the sole leader's cushion over the runner-up, as a share of the range.
    if (s.leader >= 0) security_sum += (s.top - second_best(t, step, s.leader)) / range;

    // Order: the share of final strict orderings between sides already true at this step.
    int pairs = 0;
    int agree = 0;
    for (int a = 0; a < t.sides(); ++a) {
      for (int b = a + 1; b < t.sides(); ++b) {
        const double final_gap = t.at(last, a) - t.at(last, b);
        if (final_gap == 0) continue;
        ++pairs;
        const double gap = t.at(step, a) - t.at(step, b);
        if ((gap > 0 && final_gap > 0) || (gap < 0 && final_gap < 0)) ++agree;
      }
    }
    if (pairs > 0) order_sum += static_cast<double>(agree) / pairs;
  }
  const auto n = static_cast<double>(steps);
  q.drama = drama_sum / n;
  q.security = security_sum / n;
  q.order = order_sum / n;
  const StepShape end = shape_of(t, last);
  q.spread = largest > 0 ? (end.top - end.bottom) / largest : 0;

  // Convergence: how much the choice narrows from the first third of decisions to the last.
  const auto& branching = t.branching();
  const std::size_t third = branching.size() / 3;
  if (third > 0) {
    double early = 0;
    double late = 0;
    for (std::size_t i = 0; i < third; ++i) {
      early += branching[i];
      late += branching[branching.size() - 1 - i];
    }
    if (early > 0) q.convergence = 1 - late / early;
  }
  return q;
}

double fairness(const std::vector<std::int64_t>& wins_per_seat) {
  const auto seats = static_cast<double>(wins_per_seat.size());
  double total = 0;
  for (auto w : wins_per_seat) total += static_cast<double>(w);
  if (seats < 2 || total <= 0) return 1;
  double deviation = 0;
  for (auto w : wins_per_seat) deviation += std::abs(static_cast<double>(w) / total - 1 / seats);
  // The largest possible deviation (one seat wins all) is 2 (seats - 1) / seats.
  return 1 - deviation * seats / (2 * (seats - 1));
}

}  // namespace parlor::sim
