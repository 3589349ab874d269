// The `ismcts` strategy: information-set Monte Carlo search over determinized worlds.
//
// At its turn the seat samples a world consistent with what it has seen (bots/determinize.h),
// picks one of its legal moves by UCB1 over the statistics gathered so far for that move across
// all worlds, plays it in the world and plays the hand out (uniformly random moves, or the
// greedy heuristic's where the game asks for it); the hand's reward for the seat is credited to
// the move. After the budget, the move tried most
// often is played. The statistics are kept per move of the seat's information set, not per
// world, so the search never plans on a card it cannot know. A game may give the search its own
// shortlist of moves for a prompt (IsmctsGame::candidates: Bid Whist's bids and discards) and
// play some decisions out by the greedy heuristic (IsmctsGame::greedy_playouts_for: Bid Whist's
// bid, declaration and discard). Decisions the game does not search (Spades' bids) and worlds
// that cannot be built (a history that does not cover the hand) go to the greedy heuristic.
//
// The same seed, events and budget give the same move: the random source is the caller's, and
// a time budget is only a cap (zero: none) for hosts that must answer in time.
#pragma once

#include <chrono>
#include <memory>

#include "bots/determinize.h"
#include "bots/strategy.h"

namespace parlor::bots {

struct SearchBudget {
  int iterations = 400;               // worlds sampled and played out per decision
  std::chrono::milliseconds time{0};  // stop sooner when this much time has passed; 0: no cap
};

std::unique_ptr<Strategy> make_ismcts(const IsmctsGame& game, std::unique_ptr<Strategy> fallback,
                                      SearchBudget budget = {});

}  // namespace parlor::bots
