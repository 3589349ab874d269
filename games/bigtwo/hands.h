// Big Two combinations: classification and comparison over CardSet masks.
//
// Rules: https://www.pagat.com/climbing/bigtwo.html as pinned by docs/RULES.md. Ranks
// high->low 2 A K Q J 10 ... 3; suits spades > hearts > clubs > diamonds (variant:
// spades > hearts > diamonds > clubs). A play is a single, a pair, a triple or a
// five-card hand (straight < flush < full house < four of a kind + any card <
// straight flush). The straights are 3-4-5-6-7 ... 10-J-Q-K-A plus, by default,
// 2-3-4-5-6 < A-2-3-4-5 < J-Q-K-A-2 above them (variant "no_twos": without those).
//
// Every valid hand gets a `strength`: among hands of the same size a larger
// strength beats a smaller one. Two disjoint hands of the same size never tie, so
// "beats" is a strict total order on whatever can meet at the table. The same
// strengths are produced by the play generator (plays.h), keeping the two in step.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "games/core/card.h"
#include "games/core/card_set.h"

namespace parlor::bigtwo {

enum class SuitOrder : std::uint8_t {
  kSpadesHeartsClubsDiamonds,  // the reference order (pagat)
  kSpadesHeartsDiamondsClubs,  // variant: clubs lowest
};

enum class StraightSet : std::uint8_t {
  kStandard,  // 3-..-7 up to 10-..-A, plus 2-3-4-5-6, A-2-3-4-5, J-Q-K-A-2
  kNoTwos,    // 3-..-7 up to 10-..-A only
};

struct HandRules {
  SuitOrder suit_order = SuitOrder::kSpadesHeartsClubsDiamonds;
  StraightSet straights = StraightSet::kStandard;
};

// Ordered so that five-card types compare by their enumerator (straight lowest).
enum class Combination : std::uint8_t {
  kNone,
  kSingle,
  kPair,
  kTriple,
  kStraight,
  kFlush,
  kFullHouse,
  kFourOfAKind,
  kStraightFlush,
};

// Wire name: "single", "pair", "triple", "straight", "flush", "full_house",
// "four_of_a_kind", "straight_flush" ("none" for kNone).
std::string_view combination_name(Combination combination);

struct Hand {
  Combination combination = Combination::kNone;
  std::uint8_t size = 0;
  // Comparable between hands of the same size. Five-card hands carry their type in
  // bits 24 and up, so a full house outranks any flush whatever the cards.
  std::uint32_t strength = 0;

  constexpr bool valid() const { return combination != Combination::kNone; }
};

// True when `play` may be laid on `table`: same number of cards and strictly stronger.
constexpr bool beats(const Hand& play, const Hand& table) {
  return play.valid() && play.size == table.size && play.strength > table.strength;
}

// 0 (lowest) .. 3 (spades) under the given order.
int suit_strength(Suit suit, SuitOrder order);
// 0 for a three .. 11 for an ace, 12 for a two.
constexpr int rank_strength(Rank rank) {
  return rank == Rank::kTwo ? 12 : static_cast<int>(rank) - 3;
}
// 0 (the lowest three) .. 51 (the two of spades): rank first, then suit.
int card_strength(Card card, SuitOrder order);

// The lowest card of a non-empty set of ordinary cards in Big Two order.
Card lowest_card(CardSet cards, SuitOrder order);
namespace detail {
// Big Two order as bit positions: for each suit order, every card's place in the order
// (threes lowest, twos highest, suits low to high; 0..51) and the card at each place.
struct LowToHighOrder {
  std::array<std::uint8_t, 52> place{};
  std::array<std::uint8_t, 52> card{};
};
inline constexpr auto kLowToHigh = [] {
  std::array<LowToHighOrder, 2> orders{};
  for (int o = 0; o < 2; ++o) {
    // kSpadesHeartsClubsDiamonds: diamonds lowest; kSpadesHeartsDiamondsClubs: clubs lowest.
    const Suit suits[4] = {o == 0 ? Suit::kDiamonds : Suit::kClubs,
                           o == 0 ? Suit::kClubs : Suit::kDiamonds, Suit::kHearts, Suit::kSpades};
    int place = 0;
    for (int r = 0; r < kRankCount; ++r) {
      const Rank rank = r == kRankCount - 1 ? Rank::kTwo : static_cast<Rank>(r + 3);
      for (Suit suit : suits) {
        const auto index = static_cast<std::uint8_t>(Card(rank, suit).index());
        orders[static_cast<std::size_t>(o)].place[index] = static_cast<std::uint8_t>(place);
        orders[static_cast<std::size_t>(o)].card[static_cast<std::size_t>(place)] = index;
        ++place;
      }
    }
  }
  return orders;
}();
}  // namespace detail

// Visits the cards of `cards` low -> high in Big Two order (jokers are not Big Two cards).
// Runs over the set's cards only: it is called for every legal play of every prompt.
template <class Visit>
void for_each_low_to_high(CardSet cards, SuitOrder order, Visit&& visit) {
  const auto& o = detail::kLowToHigh[order == SuitOrder::kSpadesHeartsClubsDiamonds ? 0 : 1];
  std::uint64_t places = 0;
  for (std::uint64_t bits = cards.bits() & ((std::uint64_t{1} << 52) - 1); bits; bits &= bits - 1) {
    places |= std::uint64_t{1} << o.place[static_cast<std::size_t>(std::countr_zero(bits))];
  }
  for (; places; places &= places - 1) {
    visit(Card::from_index(o.card[static_cast<std::size_t>(std::countr_zero(places))]));
  }
}

// The cards of `cards` sorted low -> high in Big Two order.
std::vector<Card> sorted_low_to_high(CardSet cards, SuitOrder order);

// A five-rank sequence. `ranks` is the rank mask in core order (bit 0 = two, bit 1 =
// three, ..., bit 12 = ace); `top` is the rank whose suit breaks ties between equal
// sequences (the two where a two is present, else the highest card).
struct Straight {
  std::uint32_t ranks;
  Rank top;
};
inline constexpr Straight kAllStraights[] = {
    {0x1FU << 1, Rank::kSeven}, {0x1FU << 2, Rank::kEight}, {0x1FU << 3, Rank::kNine},
    {0x1FU << 4, Rank::kTen},   {0x1FU << 5, Rank::kJack},  {0x1FU << 6, Rank::kQueen},
    {0x1FU << 7, Rank::kKing},  {0x1FU << 8, Rank::kAce},   {0x001FU, Rank::kTwo},  // 2-3-4-5-6
    {0x100FU, Rank::kTwo},                                                          // A-2-3-4-5
    {0x1E01U, Rank::kTwo},                                                          // J-Q-K-A-2
};
// The straights a rule set allows, weakest first (the index is the sequence's rank).
constexpr std::span<const Straight> straights_for(StraightSet set) {
  return std::span<const Straight>(kAllStraights).first(set == StraightSet::kStandard ? 11 : 8);
}
// Index of `ranks` (core rank mask) among straights_for(set), or -1 when it is no straight.
int straight_index(std::uint32_t ranks, StraightSet set);

// The combination a set of cards forms (kNone when it forms none, e.g. K-A-2-3-4 of
// mixed suits, a four-card set, or anything with a joker).
Hand classify(CardSet cards, const HandRules& rules);

// Strength encodings shared by classify and the play generator.
constexpr std::uint32_t kFiveCardTypeShift = 24;
constexpr std::uint32_t five_card_strength(Combination type, std::uint32_t within_type) {
  return (static_cast<std::uint32_t>(type) - static_cast<std::uint32_t>(Combination::kStraight))
             << kFiveCardTypeShift |
         within_type;
}
// Within-type strength of a straight (or straight flush): sequence, then the top card's suit.
constexpr std::uint32_t straight_within(int index, int top_suit_strength) {
  return static_cast<std::uint32_t>(index * 4 + top_suit_strength);
}
// Within-type strength of a flush with the given core rank mask (five ranks): the ranks
// high -> low, then the suit.
std::uint32_t flush_within(std::uint32_t ranks, int suit_strength);
// Core rank mask (bit 0 = two) -> Big Two rank mask (bit 0 = three, bit 12 = two).
constexpr std::uint32_t big_two_rank_mask(std::uint32_t ranks) {
  return (ranks >> 1) | ((ranks & 1U) << 12);
}

}  // namespace parlor::bigtwo
