#include "games/core/card.h"

#include <gtest/gtest.h>

#include "games/core/card_set.h"
#include "games/core/deck.h"

namespace parlor {
namespace {

TEST(Card, RoundTripsEveryCardOfTheLargestDeck) {
  for (Card c : deck_with_jokers()) {
    auto parsed = parse_card(c.to_string());
    ASSERT_TRUE(parsed) << c.to_string();
    EXPECT_EQ(*parsed, c);
  }
}

TEST(Card, WireNames) {
  EXPECT_EQ(Card(Rank::kThree, Suit::kDiamonds).to_string(), "3D");
  EXPECT_EQ(Card(Rank::kTen, Suit::kSpades).to_string(), "TS");
  EXPECT_EQ(Card(Rank::kAce, Suit::kHearts).to_string(), "AH");
  EXPECT_EQ(Card::big_joker().to_string(), "BJ");
  EXPECT_EQ(Card::little_joker().to_string(), "LJ");
}

TEST(Card, ParseErrorsSayWhatIsWrong) {
  std::string error;
  EXPECT_FALSE(parse_card("10H", &error));
  EXPECT_NE(error.find("two characters"), std::string::npos) << error;
  EXPECT_FALSE(parse_card("1H", &error));
  EXPECT_NE(error.find("rank"), std::string::npos) << error;
  EXPECT_FALSE(parse_card("AX", &error));
  EXPECT_NE(error.find("suit"), std::string::npos) << error;
  EXPECT_FALSE(parse_card("as", &error));  // lower case is not the wire format
  EXPECT_FALSE(parse_card(std::string(1000, 'A'), &error));
  EXPECT_LT(error.size(), 200U) << "a long input must not be echoed in full";
  // A multi-byte character cut by the quoting must not make the message invalid UTF-8.
  EXPECT_FALSE(parse_card("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", &error));
  for (char c : error) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << error;
}

TEST(CardSet, SetOperations) {
  CardSet s{Card(Rank::kThree, Suit::kDiamonds), Card(Rank::kTwo, Suit::kSpades)};
  EXPECT_EQ(s.size(), 2);
  EXPECT_TRUE(s.contains(Card(Rank::kTwo, Suit::kSpades)));
  EXPECT_FALSE(s.contains(Card(Rank::kTwo, Suit::kHearts)));
  EXPECT_EQ(s.of_suit(Suit::kSpades).size(), 1);
  EXPECT_EQ(s.rank_bits(Suit::kDiamonds), 0b10U);
  EXPECT_EQ(s.lowest(), Card(Rank::kThree, Suit::kDiamonds));
  EXPECT_EQ(s.highest(), Card(Rank::kTwo, Suit::kSpades));
  CardSet t = s - CardSet{Card(Rank::kTwo, Suit::kSpades)};
  EXPECT_EQ(t.size(), 1);
  EXPECT_TRUE(s.contains_all(t));
  EXPECT_FALSE(t.contains_all(s));
}

TEST(Deck, Sizes) {
  EXPECT_EQ(standard_deck().size(), 52);
  EXPECT_EQ(deck_with_jokers().size(), 54);
  const CardSet agram =
      stripped_deck({Rank::kAce, Rank::kTen, Rank::kNine, Rank::kEight, Rank::kSeven, Rank::kSix,
                     Rank::kFive, Rank::kFour, Rank::kThree},
                    CardSet{Card(Rank::kAce, Suit::kSpades)});
  EXPECT_EQ(agram.size(), 35);
  EXPECT_FALSE(agram.contains(Card(Rank::kAce, Suit::kSpades)));
}

}  // namespace
}  // namespace parlor
