// The quality report's "meaningful choices" measure: at one decision, does it matter which legal
// move the seat makes? Each candidate move is played in copies of the true state and the rest
// of the hand is played out (the rollouts the ismcts search uses, judged by the same reward);
// the best and the worst candidate's mean outcomes are then compared.
//
// This reads the true state, which only an offline measure may: it lives in the simulator's
// report, never in a strategy (strategies see a seat's view only).
#pragma once

#include <cstdint>

#include "bots/determinize.h"
#include "bots/strategy.h"
#include "games/core/game.h"
#include "games/core/rng.h"

namespace parlor::sim {

struct ChoiceSettings {
  int max_moves = 8;  // candidate moves per decision (all legal moves when there are fewer)
  int rollouts = 16;  // playouts per candidate in each half (selection, then measurement)
};

// One decision, measured.
struct ChoiceSample {
  double legal_moves = 0;  // what the prompt offers (a `choose` prompt counts its subsets)
  int tried = 0;           // candidates played out
  double best = 0;         // measurement-half mean outcome of the selection half's best move
  double worst = 0;        // ... and of its worst move
  bool differs = false;    // best - worst exceeds 1.96 standard errors of the difference
};

// Measures the decision `seat` faces in `state`. Candidates are every legal move, or a uniform
// sample of `max_moves` of them (random subsets for a `choose` prompt). Each candidate gets
// 2 x `rollouts` playouts: the move, then every seat moves by `playout` (uniformly at random
// when null) until `judge.hand_over`, scored by `judge.reward` for `seat` in [0, 1]. Playout r
// draws from the same random stream for every candidate (common random numbers), so moves that
// lead to the same play score exactly alike. The first half picks the best and worst candidate
// by mean; the second half, independent of that pick, measures them, so a game whose moves
// never matter shows a difference in about 2.5% of decisions, not in most of them.
ChoiceSample measure_choice(const Game& state, Seat seat, const bots::IsmctsGame& judge,
                            bots::Strategy* playout, const ChoiceSettings& settings,
                            std::uint64_t seed);

}  // namespace parlor::sim
