// Dealing the cards a seat cannot see: the unknown cards shared out among the other hands so
// that every hand gets its known count and no hand gets a card of a suit it has shown it lacks
// (it failed to follow that suit). Determinization samplers (bots/determinize_<kind>.cpp) build
// their worlds from these hands.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "games/core/card_set.h"
#include "games/core/game.h"
#include "games/core/rng.h"

namespace parlor::bots {

// What one hidden hand must look like: how many cards it holds, and cards it cannot hold.
struct HiddenHand {
  int count = 0;
  CardSet excluded;
};

// A random deal of `unknown` into hands[i].count cards each, none from hands[i].excluded; the
// cards left over stay undealt. Nullopt exactly when no such deal exists: a few random
// attempts first, and when the constraints are too tight for those to succeed, a deal built
// card by card that never strands a hand short of cards it may hold.
std::optional<std::vector<CardSet>> deal_hidden(CardSet unknown, std::span<const HiddenHand> hands,
                                                Rng& rng);

// The cards of every suit `voids` marks (bit s = suit s), jokers never included.
CardSet cards_of_suits(unsigned voids);
// Per seat, the cards of the suits it has shown it lacks (cards_of_suits of each entry).
std::vector<CardSet> void_cards(std::span<const unsigned> voids);

// The hands of one world as they were dealt at the start of the hand in progress: the seat
// `you` holds `hand`, every other seat a random draw from `unknown` of its count in the view's
// `hand_counts` (none of its `excluded` cards, when given); each seat's `played` cards are
// added back. Nullopt when no such deal exists.
std::optional<std::vector<CardSet>> deal_hands(CardSet unknown, const Json& hand_counts, Seat you,
                                               CardSet hand, std::span<const CardSet> played,
                                               std::span<const CardSet> excluded, Rng& rng);

}  // namespace parlor::bots
