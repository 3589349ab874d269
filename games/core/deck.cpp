#include "games/core/deck.h"

#include "games/core/rng.h"

namespace parlor {

CardSet standard_deck() { return CardSet((std::uint64_t{1} << 52) - 1); }

CardSet deck_with_jokers() {
  CardSet deck = standard_deck();
  deck.add(Card::little_joker());
  deck.add(Card::big_joker());
  return deck;
}

CardSet stripped_deck(std::initializer_list<Rank> ranks, CardSet removed) {
  CardSet deck;
  for (int s = 0; s < kSuitCount; ++s) {
    for (Rank r : ranks) deck.add(Card(r, static_cast<Suit>(s)));
  }
  return deck - removed;
}

std::vector<Card> shuffled(CardSet deck, std::uint64_t seed) {
  std::vector<Card> cards = deck.to_vector();
  Rng rng(seed);
  rng.shuffle(std::span<Card>(cards));
  return cards;
}

}  // namespace parlor
