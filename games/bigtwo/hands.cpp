#include "games/bigtwo/hands.h"

#include <algorithm>
#include <array>
#include <bit>

namespace parlor::bigtwo {
namespace {

// Suits low -> high for each order.
constexpr std::array<std::array<Suit, 4>, 2> kSuitsLowToHigh = {{
    {Suit::kDiamonds, Suit::kClubs, Suit::kHearts, Suit::kSpades},
    {Suit::kClubs, Suit::kDiamonds, Suit::kHearts, Suit::kSpades},
}};

constexpr std::uint64_t kOrdinaryCards = (std::uint64_t{1} << 52) - 1;

// The suit (core order) of the card of rank `rank` in `cards`; the rank must be present.
Suit suit_holding(CardSet cards, Rank rank) {
  for (int s = 0; s < kSuitCount; ++s) {
    if (cards.contains(Card(rank, static_cast<Suit>(s)))) return static_cast<Suit>(s);
  }
  return Suit::kClubs;  // unreachable for a present rank
}

}  // namespace

std::string_view combination_name(Combination combination) {
  switch (combination) {
    case Combination::kNone:
      return "none";
    case Combination::kSingle:
      return "single";
    case Combination::kPair:
      return "pair";
    case Combination::kTriple:
      return "triple";
    case Combination::kStraight:
      return "straight";
    case Combination::kFlush:
      return "flush";
    case Combination::kFullHouse:
      return "full_house";
    case Combination::kFourOfAKind:
      return "four_of_a_kind";
    case Combination::kStraightFlush:
      return "straight_flush";
  }
  return "none";
}

int suit_strength(Suit suit, SuitOrder order) {
  switch (suit) {
    case Suit::kSpades:
      return 3;
    case Suit::kHearts:
      return 2;
    case Suit::kClubs:
      return order == SuitOrder::kSpadesHeartsClubsDiamonds ? 1 : 0;
    case Suit::kDiamonds:
      return order == SuitOrder::kSpadesHeartsClubsDiamonds ? 0 : 1;
  }
  return 0;
}

int card_strength(Card card, SuitOrder order) {
  return rank_strength(card.rank()) * 4 + suit_strength(card.suit(), order);
}

Card lowest_card(CardSet cards, SuitOrder order) {
  const auto& suits = kSuitsLowToHigh[static_cast<int>(order)];
  for (int r = 0; r < kRankCount; ++r) {
    const Rank rank = r == 12 ? Rank::kTwo : static_cast<Rank>(r + 3);
    for (Suit suit : suits) {
      if (cards.contains(Card(rank, suit))) return Card(rank, suit);
    }
  }
  return Card();
}

std::vector<Card> sorted_low_to_high(CardSet cards, SuitOrder order) {
  std::vector<Card> out;
  out.reserve(static_cast<std::size_t>(cards.size()));
  for_each_low_to_high(cards, order, [&out](Card c) { out.push_back(c); });
  return out;
}

int straight_index(std::uint32_t ranks, StraightSet set) {
  const auto straights = straights_for(set);
  for (std::size_t i = 0; i < straights.size(); ++i) {
    if (straights[i].ranks == ranks) return static_cast<int>(i);
  }
  return -1;
}

std::uint32_t flush_within(std::uint32_t ranks, int suit_strength) {
  std::uint32_t order = big_two_rank_mask(ranks);
  std::uint32_t out = 0;
  while (order != 0) {  // highest rank first, four bits each
    const int top = 31 - std::countl_zero(order);
    out = out << 4 | static_cast<std::uint32_t>(top);
    order &= ~(1U << top);
  }
  return out << 2 | static_cast<std::uint32_t>(suit_strength);
}

Hand classify(CardSet cards, const HandRules& rules) {
  if ((cards.bits() & ~kOrdinaryCards) != 0) return {};
  const int size = cards.size();
  std::array<std::uint32_t, kSuitCount> by_suit{};
  std::uint32_t ranks = 0;
  for (int s = 0; s < kSuitCount; ++s) {
    by_suit[s] = cards.rank_bits(static_cast<Suit>(s));
    ranks |= by_suit[s];
  }
  const int distinct = std::popcount(ranks);
  const auto size8 = static_cast<std::uint8_t>(size);

  if (size == 1) {
    return {Combination::kSingle, 1,
            static_cast<std::uint32_t>(card_strength(cards.lowest(), rules.suit_order))};
  }
  if ((size == 2 || size == 3) && distinct == 1) {
    const auto rank = static_cast<Rank>(std::countr_zero(ranks) + 2);
    if (size == 3) {
      return {Combination::kTriple, 3, static_cast<std::uint32_t>(rank_strength(rank))};
    }
    int high_suit = 0;
    for (Card c : cards) high_suit = std::max(high_suit, suit_strength(c.suit(), rules.suit_order));
    return {Combination::kPair, 2, static_cast<std::uint32_t>(rank_strength(rank) * 4 + high_suit)};
  }
  if (size != 5) return {};

  int flush_suit = -1;
  for (int s = 0; s < kSuitCount; ++s) {
    if (std::popcount(by_suit[s]) == 5) flush_suit = s;
  }
  if (distinct == 5) {
    const int index = straight_index(ranks, rules.straights);
    if (index >= 0) {
      const Rank top = straights_for(rules.straights)[index].top;
      const int top_suit = suit_strength(suit_holding(cards, top), rules.suit_order);
      const Combination type =
          flush_suit >= 0 ? Combination::kStraightFlush : Combination::kStraight;
      return {type, size8, five_card_strength(type, straight_within(index, top_suit))};
    }
    if (flush_suit >= 0) {
      const int suit = suit_strength(static_cast<Suit>(flush_suit), rules.suit_order);
      return {Combination::kFlush, size8,
              five_card_strength(Combination::kFlush, flush_within(ranks, suit))};
    }
    return {};
  }
  if (distinct == 2) {  // 4 + 1 or 3 + 2
    for (std::uint32_t rest = ranks; rest != 0; rest &= rest - 1) {
      const int bit = std::countr_zero(rest);
      int count = 0;
      for (std::uint32_t suit_ranks : by_suit) count += static_cast<int>((suit_ranks >> bit) & 1U);
      const auto within = static_cast<std::uint32_t>(rank_strength(static_cast<Rank>(bit + 2)));
      if (count == 4) {
        return {Combination::kFourOfAKind, size8,
                five_card_strength(Combination::kFourOfAKind, within)};
      }
      if (count == 3) {
        return {Combination::kFullHouse, size8,
                five_card_strength(Combination::kFullHouse, within)};
      }
    }
  }
  return {};
}

}  // namespace parlor::bigtwo
