// Table-driven tests of Big Two hand classification and comparison.
// Rules: https://www.pagat.com/climbing/bigtwo.html and docs/RULES.md.
#include "games/bigtwo/hands.h"

#include <gtest/gtest.h>

#include <string>

#include "games/testing/card_text.h"

namespace parlor::bigtwo {
namespace {

using parlor::testing::cards;

std::uint32_t rank_mask(CardSet set) {
  std::uint32_t ranks = 0;
  for (int s = 0; s < kSuitCount; ++s) ranks |= set.rank_bits(static_cast<Suit>(s));
  return ranks;
}

constexpr HandRules kReference{};
constexpr HandRules kClubsLow{SuitOrder::kSpadesHeartsDiamondsClubs, StraightSet::kStandard};
constexpr HandRules kNoTwos{SuitOrder::kSpadesHeartsClubsDiamonds, StraightSet::kNoTwos};

using C = Combination;

struct ClassifyCase {
  const char* cards;
  Combination standard;  // under the reference rules
  Combination no_twos;   // under straights: "no_twos"
};

TEST(BigTwoHands, ClassifiesEveryHandType) {
  const ClassifyCase cases[] = {
      {"", C::kNone, C::kNone},
      {"3D", C::kSingle, C::kSingle},
      {"2S", C::kSingle, C::kSingle},
      {"9S 9D", C::kPair, C::kPair},
      {"9S 8S", C::kNone, C::kNone},
      {"QH QC QS", C::kTriple, C::kTriple},
      {"QH QC JS", C::kNone, C::kNone},
      {"QH QC QS QD", C::kNone, C::kNone},  // four cards are no combination
      {"3D 4C 5H 6S 7D", C::kStraight, C::kStraight},
      {"9D TC JH QS KD", C::kStraight, C::kStraight},
      {"TD JC QH KS AD", C::kStraight, C::kStraight},
      {"2D 3C 4H 5S 6D", C::kStraight, C::kNone},
      {"AD 2C 3H 4S 5D", C::kStraight, C::kNone},
      {"JD QC KH AS 2D", C::kStraight, C::kNone},
      {"KD AC 2H 3S 4D", C::kNone, C::kNone},  // no other wrap-around
      {"QD KC AH 2S 3D", C::kNone, C::kNone},
      {"3D 4C 5H 6S 8D", C::kNone, C::kNone},
      {"3H 7H 9H JH KH", C::kFlush, C::kFlush},
      {"KH AH 2H 3H 4H", C::kFlush, C::kFlush},
      {"2H 3H 4H 5H 6H", C::kStraightFlush, C::kFlush},
      {"AH 2H 3H 4H 5H", C::kStraightFlush, C::kFlush},
      {"JC QC KC AC 2C", C::kStraightFlush, C::kFlush},
      {"TS JS QS KS AS", C::kStraightFlush, C::kStraightFlush},
      {"3D 4D 5D 6D 7D", C::kStraightFlush, C::kStraightFlush},
      {"9S 9H 9D 4C 4S", C::kFullHouse, C::kFullHouse},
      {"2S 2H 2D AC AS", C::kFullHouse, C::kFullHouse},
      {"7S 7H 7D 7C 3D", C::kFourOfAKind, C::kFourOfAKind},
      {"7S 7H 7D 7C 2S", C::kFourOfAKind, C::kFourOfAKind},
      {"9S 9H 9D 4C 5S", C::kNone, C::kNone},  // three of a kind plus two odd cards
      {"9S 9H 4D 4C 5S", C::kNone, C::kNone},  // two pairs
      {"3D 4D 5D 6D 7D 8D", C::kNone, C::kNone},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(classify(cards(c.cards), kReference).combination, c.standard) << c.cards;
    EXPECT_EQ(classify(cards(c.cards), kNoTwos).combination, c.no_twos) << c.cards;
  }
}

TEST(BigTwoHands, JokersAreNeverACombination) {
  CardSet joker{Card::big_joker()};
  EXPECT_FALSE(classify(joker, kReference).valid());
  CardSet with_joker = cards("9S 9H 9D 4C");
  with_joker.add(Card::little_joker());
  EXPECT_FALSE(classify(with_joker, kReference).valid());
}

struct BeatCase {
  const char* higher;
  const char* lower;
  HandRules rules = kReference;
};

void expect_order(const BeatCase& c) {
  const Hand high = classify(cards(c.higher), c.rules);
  const Hand low = classify(cards(c.lower), c.rules);
  ASSERT_TRUE(high.valid()) << c.higher;
  ASSERT_TRUE(low.valid()) << c.lower;
  EXPECT_TRUE(beats(high, low)) << c.higher << " should beat " << c.lower;
  EXPECT_FALSE(beats(low, high)) << c.lower << " should not beat " << c.higher;
}

TEST(BigTwoHands, SinglesByRankThenSuit) {
  const BeatCase cases[] = {
      {"3C", "3D"},
      {"3H", "3C"},
      {"3S", "3H"},
      {"4D", "3S"},
      {"AD", "KS"},
      {"2D", "AS"},
      {"2S", "2H"},
      {"3D", "3C", kClubsLow},  // variant: diamonds above clubs
      {"4C", "3S", kClubsLow},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, PairsByRankThenHigherSuit) {
  const BeatCase cases[] = {
      {"9S 9D", "9H 9C"},  // docs/RULES.md example: the spade decides
      {"9S 9C", "9H 9D"},
      {"TD TC", "9S 9H"},
      {"2D 2C", "AS AH"},
      {"3S 3D", "3H 3C"},
      {"9S 9C", "9H 9D", kClubsLow},  // disjoint equal pairs: one holds the spade
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, TriplesByRank) {
  const BeatCase cases[] = {
      {"4D 4C 4H", "3S 3H 3C"},
      {"2D 2C 2H", "AS AH AC"},
      {"KD KC KH", "QS QH QC"},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, EveryStraightOutranksTheOnesBelowIt) {
  // Weakest first, as docs/RULES.md ranks them; mixed suits so none is a flush.
  const char* ladder[] = {
      "3D 4C 5H 6S 7D", "4D 5C 6H 7S 8D", "5D 6C 7H 8S 9D", "6D 7C 8H 9S TD",
      "7D 8C 9H TS JD", "8D 9C TH JS QD", "9D TC JH QS KD", "TD JC QH KS AD",
      "2D 3C 4H 5S 6D", "AD 2C 3H 4S 5D", "JD QC KH AS 2D",
  };
  constexpr int kCount = sizeof(ladder) / sizeof(ladder[0]);
  for (int high = 0; high < kCount; ++high) {
    EXPECT_EQ(straight_index(rank_mask(cards(ladder[high])), StraightSet::kStandard), high)
        << ladder[high];
    for (int low = 0; low < high; ++low) expect_order({ladder[high], ladder[low]});
  }
  // The eight plain sequences keep their order under no_twos.
  for (int high = 1; high < 8; ++high) {
    for (int low = 0; low < high; ++low) expect_order({ladder[high], ladder[low], kNoTwos});
  }
}

TEST(BigTwoHands, EqualStraightsBreakTiesOnTheTopCardsSuit) {
  const BeatCase cases[] = {
      {"3D 4D 5D 6D 7S", "3S 4S 5S 6S 7H"},  // the seven decides, not the other cards
      {"9D TC JH QS KS", "9S TS JS QH KH"},
      {"TS JS QS KS AC", "TD JD QD KH AD"},  // 10-J-Q-K-A: the ace
      {"TD JD QD KH AD", "TS JS QS KS AC", kClubsLow},
      {"2S 3D 4D 5D 6D", "2H 3S 4S 5S 6S"},  // 2-3-4-5-6: the two, not the six
      {"AD 2S 3D 4D 5D", "AS 2H 3S 4S 5S"},  // A-2-3-4-5: the two, not the ace
      {"JD QD KD AD 2S", "JS QS KS AS 2H"},  // J-Q-K-A-2: the two
      {"JD QD KD AD 2C", "JS QS KS AS 2D"},
      {"JS QS KS AS 2D", "JD QD KD AD 2C", kClubsLow},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, FlushesByHighestCardThenNextThenSuit) {
  const BeatCase cases[] = {
      {"3D 5D 7D 9D AD", "3H 5H 7H 9H KH"},  // highest card
      {"2D 4D 6D 8D TD", "AS KS QS JS 9S"},  // a two is the highest rank
      {"KD QD 9D 7D 5D", "KH JH 9H 7H 5H"},  // second card
      {"KD JD TD 7D 5D", "KH JH 9H 7H 5H"},  // third card
      {"KD JD 9D 8D 5D", "KH JH 9H 7H 5H"},  // fourth card
      {"KD JD 9D 7D 5D", "KH JH 9H 7H 4H"},  // fifth card
      {"KS JS 9S 7S 5S", "KH JH 9H 7H 5H"},  // same ranks: suit
      {"KC JC 9C 7C 5C", "KD JD 9D 7D 5D"},
      {"KD JD 9D 7D 5D", "KC JC 9C 7C 5C", kClubsLow},
      {"2D 3D 4D 5D 6D", "AS KS QS JS 9S", kNoTwos},  // not a straight there: a 2-high flush
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, FullHousesByTheTriple) {
  const BeatCase cases[] = {
      {"4S 4H 4D 3C 3D", "3S 3H 3C 2S 2H"},
      {"2C 2D 2H 3C 3D", "AS AH AD KS KH"},
      {"9C 9D 9H 5C 5D", "8S 8H 8D AC AD"},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, FourOfAKindByTheFourWithAnyKicker) {
  const BeatCase cases[] = {
      {"6S 6H 6D 6C 3D", "5S 5H 5D 5C 2S"},
      {"2S 2H 2D 2C 3D", "AS AH AD AC KS"},
      {"4S 4H 4D 4C 3D", "3S 3H 3D 3C 2S"},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, StraightFlushesBySequenceThenSuit) {
  const BeatCase cases[] = {
      {"4C 5C 6C 7C 8C", "3S 4S 5S 6S 7S"},
      {"3C 4C 5C 6C 7C", "3D 4D 5D 6D 7D"},
      {"3D 4D 5D 6D 7D", "3C 4C 5C 6C 7C", kClubsLow},
      {"JD QD KD AD 2D", "TS JS QS KS AS"},
      {"AH 2H 3H 4H 5H", "2S 3S 4S 5S 6S"},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, FiveCardTypesOutrankEachOtherWhateverTheCards) {
  const BeatCase cases[] = {
      {"3D 4D 5D 6D 8D", "JS QS KS AS 2H"},  // weakest flush > strongest straight
      {"3D 3C 3H 4D 4C", "2S AS KS QS 9S"},  // weakest full house > strongest flush
      {"3D 3C 3H 3S 4D", "2D 2C 2H AS AH"},  // weakest four > strongest full house
      {"3D 4D 5D 6D 7D", "2D 2C 2H 2S AS"},  // weakest straight flush > strongest four
      {"3D 4D 5D 6D 7D", "JS QS KS AS 2H"},
  };
  for (const auto& c : cases) expect_order(c);
}

TEST(BigTwoHands, DifferentSizesNeverBeatEachOther) {
  const Hand single = classify(cards("2S"), kReference);
  const Hand pair = classify(cards("3D 3C"), kReference);
  const Hand triple = classify(cards("3H 3S 3D"), kReference);
  const Hand straight = classify(cards("3D 4C 5H 6S 7D"), kReference);
  EXPECT_FALSE(beats(single, pair));
  EXPECT_FALSE(beats(pair, single));
  EXPECT_FALSE(beats(triple, pair));
  EXPECT_FALSE(beats(straight, triple));
  EXPECT_FALSE(beats(Hand{}, single));
}

TEST(BigTwoHands, StraightIndexKnowsOnlyTheListedSequences) {
  EXPECT_EQ(straight_index(rank_mask(cards("3D 4D 5D 6D 7D")), StraightSet::kStandard), 0);
  EXPECT_EQ(straight_index(rank_mask(cards("JD QD KD AD 2D")), StraightSet::kStandard), 10);
  EXPECT_EQ(straight_index(rank_mask(cards("JD QD KD AD 2D")), StraightSet::kNoTwos), -1);
  EXPECT_EQ(straight_index(rank_mask(cards("KD AD 2D 3D 4D")), StraightSet::kStandard), -1);
  EXPECT_EQ(straight_index(rank_mask(cards("QD KD AD 2D 3D")), StraightSet::kStandard), -1);
  EXPECT_EQ(straights_for(StraightSet::kStandard).size(), 11U);
  EXPECT_EQ(straights_for(StraightSet::kNoTwos).size(), 8U);
}

TEST(BigTwoHands, CardOrderAndLowestCard) {
  EXPECT_EQ(lowest_card(cards("3D 3C 4D"), SuitOrder::kSpadesHeartsClubsDiamonds).to_string(),
            "3D");
  EXPECT_EQ(lowest_card(cards("3D 3C 4D"), SuitOrder::kSpadesHeartsDiamondsClubs).to_string(),
            "3C");
  EXPECT_EQ(lowest_card(cards("2C AS 4H"), SuitOrder::kSpadesHeartsClubsDiamonds).to_string(),
            "4H");
  std::string order;
  for (Card c :
       sorted_low_to_high(cards("2S 3S 3D AH 3C"), SuitOrder::kSpadesHeartsClubsDiamonds)) {
    order += c.to_string() + " ";
  }
  EXPECT_EQ(order, "3D 3C 3S AH 2S ");
  EXPECT_EQ(
      card_strength(Card(Rank::kThree, Suit::kDiamonds), SuitOrder::kSpadesHeartsClubsDiamonds), 0);
  EXPECT_EQ(card_strength(Card(Rank::kTwo, Suit::kSpades), SuitOrder::kSpadesHeartsClubsDiamonds),
            51);
  EXPECT_EQ(combination_name(Combination::kFourOfAKind), "four_of_a_kind");
}

}  // namespace
}  // namespace parlor::bigtwo
