// The decks Parlor's games deal from, in a fixed canonical order.
#pragma once

#include <cstdint>
#include <vector>

#include "games/core/card.h"
#include "games/core/card_set.h"

namespace parlor {

CardSet standard_deck();     // 52 cards
CardSet deck_with_jokers();  // 52 + little and big joker
// Only the ranks in `ranks` (of every suit), minus `removed`: e.g. Agram's 35 cards.
CardSet stripped_deck(std::initializer_list<Rank> ranks, CardSet removed = {});

// The deck's cards in index order, shuffled with Rng(seed): the single way games deal.
std::vector<Card> shuffled(CardSet deck, std::uint64_t seed);

}  // namespace parlor
