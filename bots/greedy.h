// The `greedy` strategies: one casual-player heuristic per game, each in its own file
// (greedy_<kind>.cpp). They read only the seat's view and prompt, always answer with a move
// from the prompt (falling back to the first legal move when the view is not understood), and
// are deterministic: ties go to the earlier legal move, never to the random source.
#pragma once

#include <memory>

#include "bots/strategy.h"

namespace parlor::bots {

std::unique_ptr<Strategy> make_greedy_bigtwo();
std::unique_ptr<Strategy> make_greedy_spades();
std::unique_ptr<Strategy> make_greedy_bidwhist();
std::unique_ptr<Strategy> make_greedy_agram();
std::unique_ptr<Strategy> make_greedy_splendor();

}  // namespace parlor::bots
