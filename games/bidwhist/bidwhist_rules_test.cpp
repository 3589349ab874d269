// Table tests of Bid Whist's pure rules: bid ranking, score of a hand, and the card order of
// every contract type (jokers included) as applied through games/tricks.
#include "games/bidwhist/bidwhist_rules.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "games/testing/card_text.h"

namespace parlor::bidwhist {
namespace {

using tricks::Direction;

using parlor::testing::cards;

std::vector<Card> card_list(const std::string& text) {
  std::vector<Card> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) out.push_back(*parse_card(word));
  return out;
}

// A contract's card order: trump "S" etc. or "" for no trump.
tricks::StandardTrickRules rules_for(const std::string& trump, Direction direction) {
  Contract c;
  c.declared = true;
  if (!trump.empty()) c.trump = parse_suit_letter(trump);
  c.direction = direction;
  return c.trick_rules();
}

struct BidCase {
  Bid bid;
  Bid other;
  bool beats;
};

TEST(BidWhistRules, BidRanking) {
  const std::vector<BidCase> cases = {
      {{4, BidType::kNoTrump}, {4, BidType::kUptown}, true},
      {{4, BidType::kNoTrump}, {4, BidType::kDowntown}, true},
      {{4, BidType::kUptown}, {4, BidType::kDowntown}, false},  // equal rank
      {{4, BidType::kDowntown}, {4, BidType::kUptown}, false},
      {{4, BidType::kUptown}, {4, BidType::kNoTrump}, false},
      {{5, BidType::kUptown}, {4, BidType::kNoTrump}, true},
      {{5, BidType::kDowntown}, {4, BidType::kDowntown}, true},
      {{3, BidType::kNoTrump}, {3, BidType::kNoTrump}, false},
      {{7, BidType::kNoTrump}, {7, BidType::kUptown}, true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.bid.beats(c.other), c.beats) << c.bid.describe() << " vs " << c.other.describe();
  }
}

struct PointsCase {
  Bid bid;
  int books;
  int points;
};

TEST(BidWhistRules, HandPoints) {
  const std::vector<PointsCase> cases = {
      {{3, BidType::kUptown}, 9, 3},    {{3, BidType::kUptown}, 8, -3},
      {{3, BidType::kDowntown}, 13, 7}, {{4, BidType::kUptown}, 11, 5},
      {{4, BidType::kNoTrump}, 10, 8},  {{4, BidType::kNoTrump}, 9, -8},
      {{7, BidType::kDowntown}, 13, 7}, {{7, BidType::kDowntown}, 12, -7},
      {{5, BidType::kNoTrump}, 11, 10}, {{7, BidType::kNoTrump}, 13, 14},
      {{7, BidType::kNoTrump}, 1, -14}, {{6, BidType::kUptown}, 12, 6},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(hand_points(c.bid, c.books), c.points) << c.bid.describe() << ", " << c.books;
  }
}

struct WinnerCase {
  const char* name;
  std::string trump;  // "" = no trump
  Direction direction;
  std::string plays;  // led by seat 0, then seats 1, 2, 3
  Seat winner;
};

TEST(BidWhistRules, TrickWinnerInEveryContract) {
  const auto up = Direction::kUptown;
  const auto down = Direction::kDowntown;
  const std::vector<WinnerCase> cases = {
      {"uptown: a small trump beats the led ace", "S", up, "AH KH 2S QH", 2},
      {"uptown: big joker is the top trump", "S", up, "5H BJ LJ AS", 1},
      {"uptown: little joker beats the trump ace", "S", up, "LJ AS KS 2S", 0},
      {"uptown: big joker over little joker", "H", up, "LJ 3C BJ AH", 2},
      {"uptown: no trump played, highest of led suit", "H", up, "9C KC AC 2C", 2},
      {"uptown: off-suit aces never win", "C", up, "2H AS AD 3H", 3},
      {"downtown: the ace stays highest", "D", down, "3C 2C AC KC", 2},
      {"downtown: low cards win", "D", down, "3C 2C KC 4C", 1},
      {"downtown: among trumps the lowest wins", "D", down, "2C KD AC 3D", 3},
      {"downtown: trump ace beats trump deuce", "D", down, "2C 2D AD 5C", 2},
      {"downtown: little joker over the trump ace", "D", down, "2C AD LJ 2D", 2},
      {"downtown: big joker led wins", "C", down, "BJ 2C AC LJ", 0},
      {"no trump uptown: jokers never win", "", up, "AH BJ KH LJ", 0},
      {"no trump: led joker, first suited card sets the suit", "", up, "BJ 5C KC LJ", 2},
      {"no trump: two jokers first, then the suit is set", "", up, "LJ BJ 3D 2D", 2},
      {"no trump: led joker, later higher other suit does not win", "", up, "LJ 5C AS 9C", 3},
      {"no trump downtown: ace highest", "", down, "KS 2S AS 3S", 2},
      {"no trump downtown: deuce beats three", "", down, "KS 2S 3S 4H", 1},
      {"no trump downtown: led joker then 9H; 5H wins", "", down, "BJ 9H 2S 5H", 3},
  };
  for (const auto& c : cases) {
    const auto rules = rules_for(c.trump, c.direction);
    tricks::Trick trick(0);
    Seat seat = 0;
    for (Card card : card_list(c.plays)) trick.add(seat++, card, rules);
    EXPECT_EQ(tricks::trick_winner(trick, rules), c.winner) << c.name;
  }
}

struct FollowCase {
  const char* name;
  std::string trump;
  std::string trick;  // cards already played, led first
  std::string hand;
  std::string legal;
};

TEST(BidWhistRules, FollowingSuitWithJokers) {
  const std::vector<FollowCase> cases = {
      {"no trump: led joker leaves the suit open", "", "LJ", "AS 2H BJ", "AS 2H BJ"},
      {"no trump: a joker does not follow hearts", "", "5H", "BJ 2H AS", "2H"},
      {"no trump: void in the led suit, joker allowed", "", "5H", "BJ AS", "BJ AS"},
      {"no trump: led joker, then a club sets clubs", "", "LJ 5C", "KC 2H BJ", "KC"},
      {"no trump: two jokers led, still open", "", "LJ BJ", "KC 2H", "KC 2H"},
      {"trump: a joker is a trump and must follow trumps", "S", "AS", "LJ 2H", "LJ"},
      {"trump: a led joker calls for trumps", "S", "LJ", "3S AH", "3S"},
      {"trump: void in hearts may play anything", "S", "AH", "BJ 2S 4D", "BJ 2S 4D"},
      {"trump: led big joker, hearts trump", "H", "BJ", "2H 3C", "2H"},
      {"trump: joker may not be played on a side suit held", "H", "4C", "BJ 3C", "3C"},
      {"empty trick: anything", "D", "", "BJ 3C 4D", "BJ 3C 4D"},
  };
  for (const auto& c : cases) {
    const auto rules = rules_for(c.trump, Direction::kUptown);
    tricks::Trick trick(0);
    Seat seat = 0;
    for (Card card : card_list(c.trick)) trick.add(seat++, card, rules);
    EXPECT_EQ(tricks::legal_cards(cards(c.hand), trick, rules), cards(c.legal)) << c.name;
  }
}

TEST(BidWhistRules, WireNames) {
  EXPECT_EQ(parse_bid_type("no_trump"), BidType::kNoTrump);
  EXPECT_EQ(parse_bid_type("notrump"), std::nullopt);
  EXPECT_EQ(parse_suit_letter("H"), Suit::kHearts);
  EXPECT_EQ(parse_suit_letter("h"), std::nullopt);
  EXPECT_EQ(parse_suit_letter("HH"), std::nullopt);
  EXPECT_EQ(parse_direction("downtown"), Direction::kDowntown);
  EXPECT_EQ(parse_direction("no_trump"), std::nullopt);
  EXPECT_EQ((Bid{4, BidType::kNoTrump}).describe(), "4 no trump");
  EXPECT_EQ((Bid{5, BidType::kDowntown}).to_json(), (Json{{"books", 5}, {"type", "downtown"}}));
}

}  // namespace
}  // namespace parlor::bidwhist
