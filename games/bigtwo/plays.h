// The typed legal-play generator for Big Two: every combination a hand can lay on
// the table, enumerated by type (singles, pairs, triples, straights from the rank
// mask, flushes per suit, full houses, four of a kind with each kicker) rather than
// by trying every five-card subset. Strengths match classify() in hands.h exactly;
// plays_test.cpp checks that against brute force.
#pragma once

#include <vector>

#include "games/bigtwo/hands.h"

namespace parlor::bigtwo {

struct Play {
  CardSet cards;
  Hand hand;
};

// Appends to `out` every combination of `hand` that may be laid on `table` (nullptr: a
// fresh lead, any combination) and that contains every card of `required` (empty: no
// requirement). Order: by size, then type, then roughly weakest first. Never allocates
// beyond what `out` needs to grow.
void generate_plays(CardSet hand, const Hand* table, CardSet required, const HandRules& rules,
                    std::vector<Play>& out);

}  // namespace parlor::bigtwo
