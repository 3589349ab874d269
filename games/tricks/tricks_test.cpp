// Tests of the shared trick-taking helpers, with the three policies the games use: Spades
// (spades trump, uptown), Agram (no trump) and Bid Whist (jokers, uptown/downtown, no trump).
#include "games/tricks/tricks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace parlor::tricks {
namespace {

Card c(const char* text) { return *parse_card(text); }

CardSet cards(std::initializer_list<const char*> texts) {
  CardSet out;
  for (const char* t : texts) out.add(c(t));
  return out;
}

Trick trick_of(Seat leader, std::initializer_list<const char*> texts, const TrickRules& rules,
               int seats = 4) {
  Trick trick(leader);
  Seat seat = leader;
  for (const char* t : texts) {
    trick.add(seat, c(t), rules);
    seat = next_seat(seat, seats);
  }
  return trick;
}

const StandardTrickRules kSpades(Suit::kSpades);
const StandardTrickRules kNoTrump(std::nullopt);
const StandardTrickRules kHeartsUptown(Suit::kHearts, Direction::kUptown);
const StandardTrickRules kHeartsDowntown(Suit::kHearts, Direction::kDowntown);
const StandardTrickRules kNoTrumpDowntown(std::nullopt, Direction::kDowntown);

struct WinnerCase {
  const char* name;
  const TrickRules* rules;
  Seat leader;
  std::vector<const char*> plays;
  Seat winner;
};

TEST(TrickWinner, Table) {
  const std::vector<WinnerCase> cases = {
      {"spades: highest of led suit", &kSpades, 0, {"5H", "KH", "2H", "AH"}, 3},
      {"spades: off-suit ace loses", &kSpades, 1, {"5H", "AD", "3H", "AC"}, 1},
      {"spades: any trump beats led suit", &kSpades, 0, {"AH", "2S", "KH", "QH"}, 1},
      {"spades: highest trump", &kSpades, 2, {"AH", "2S", "3S", "KH"}, 0},
      {"spades: spade led", &kSpades, 0, {"4S", "AH", "5S", "3S"}, 2},
      {"agram: off-suit higher cards never win", &kNoTrump, 0, {"3D", "AC", "AH", "TS"}, 0},
      {"agram: follow, highest of led", &kNoTrump, 1, {"5C", "9C", "AD", "4C"}, 2},
      {"agram: two seats", &kNoTrump, 1, {"5C", "9C"}, 0},
      {"uptown: big joker tops", &kHeartsUptown, 0, {"AH", "LJ", "BJ", "KH"}, 2},
      {"uptown: little joker over trump ace", &kHeartsUptown, 0, {"AH", "LJ", "2C", "KH"}, 1},
      {"downtown: 2 beats K", &kHeartsDowntown, 0, {"KC", "2C", "QC", "3C"}, 1},
      {"downtown: ace stays highest", &kHeartsDowntown, 0, {"2C", "AC", "3C", "KC"}, 1},
      {"downtown: any trump over led", &kHeartsDowntown, 0, {"2C", "KH", "AC", "3C"}, 1},
      {"downtown: low trump highest", &kHeartsDowntown, 0, {"2C", "KH", "2H", "3C"}, 2},
      {"no trump: joker never wins", &kNoTrump, 0, {"2C", "BJ", "LJ", "3C"}, 3},
      {"no trump: joker led, next suited sets suit", &kNoTrump, 0, {"BJ", "4D", "KC", "5D"}, 3},
      {"no trump downtown: joker led", &kNoTrumpDowntown, 3, {"LJ", "KS", "3S", "AD"}, 1},
      {"no trump downtown: ace high", &kNoTrumpDowntown, 3, {"LJ", "KS", "AS", "2S"}, 1},
  };
  for (const auto& tc : cases) {
    Trick trick(tc.leader);
    Seat seat = tc.leader;
    for (const char* t : tc.plays) {
      trick.add(seat, c(t), *tc.rules);
      seat = next_seat(seat, static_cast<int>(tc.plays.size()));
    }
    EXPECT_EQ(trick_winner(trick, *tc.rules), tc.winner) << tc.name;
  }
}

TEST(EffectiveSuit, JokersFollowTrumpOrNothing) {
  EXPECT_EQ(kHeartsUptown.effective_suit(Card::big_joker()), Suit::kHearts);
  EXPECT_EQ(kHeartsDowntown.effective_suit(Card::little_joker()), Suit::kHearts);
  EXPECT_EQ(kNoTrump.effective_suit(Card::big_joker()), std::nullopt);
  EXPECT_EQ(kNoTrump.effective_suit(c("4D")), Suit::kDiamonds);
}

TEST(LedSuit, SetByFirstSuitedCard) {
  EXPECT_EQ(trick_of(0, {"BJ"}, kNoTrump).led_suit(), std::nullopt);
  EXPECT_EQ(trick_of(0, {"BJ", "LJ"}, kNoTrump).led_suit(), std::nullopt);
  EXPECT_EQ(trick_of(0, {"BJ", "4D"}, kNoTrump).led_suit(), Suit::kDiamonds);
  EXPECT_EQ(trick_of(0, {"BJ"}, kHeartsUptown).led_suit(), Suit::kHearts);
  EXPECT_EQ(trick_of(0, {"7C", "AS"}, kSpades).led_suit(), Suit::kClubs);
}

struct LegalCase {
  const char* name;
  const TrickRules* rules;
  std::vector<const char*> trick;
  CardSet hand;
  CardSet legal;
};

TEST(LegalCards, Table) {
  const std::vector<LegalCase> cases = {
      {"lead: anything", &kSpades, {}, cards({"2C", "AS", "4H"}), cards({"2C", "AS", "4H"})},
      {"follow when able", &kSpades, {"5H"}, cards({"2C", "AS", "4H", "KH"}), cards({"4H", "KH"})},
      {"void: anything", &kSpades, {"5D"}, cards({"2C", "AS", "4H"}), cards({"2C", "AS", "4H"})},
      {"no need to beat", &kNoTrump, {"AC"}, cards({"3C", "9D"}), cards({"3C"})},
      {"joker follows trump", &kHeartsUptown, {"5H"}, cards({"BJ", "2C"}), cards({"BJ"})},
      {"trump led, joker and hearts",
       &kHeartsUptown,
       {"LJ"},
       cards({"BJ", "3H", "2C"}),
       cards({"BJ", "3H"})},
      {"joker not a club", &kHeartsUptown, {"5C"}, cards({"BJ", "2C"}), cards({"2C"})},
      {"no trump: joker led frees next",
       &kNoTrump,
       {"BJ"},
       cards({"LJ", "2C", "3D"}),
       cards({"LJ", "2C", "3D"})},
      {"no trump: suit set after joker",
       &kNoTrump,
       {"BJ", "4D"},
       cards({"LJ", "2C", "3D"}),
       cards({"3D"})},
      {"no trump: joker may not replace suit",
       &kNoTrump,
       {"4D"},
       cards({"LJ", "3D"}),
       cards({"3D"})},
      {"no trump: void, joker allowed",
       &kNoTrump,
       {"4D"},
       cards({"LJ", "3C"}),
       cards({"LJ", "3C"})},
  };
  for (const auto& tc : cases) {
    Trick trick(0);
    Seat seat = 0;
    for (const char* t : tc.trick) trick.add(seat++, c(t), *tc.rules);
    EXPECT_EQ(legal_cards(tc.hand, trick, *tc.rules), tc.legal) << tc.name;
    for (Card card : tc.hand) {
      EXPECT_EQ(follow_suit_error(tc.hand, trick, card, *tc.rules).has_value(),
                !tc.legal.contains(card))
          << tc.name << " " << card.to_string();
    }
  }
}

TEST(FollowSuitError, NamesCardAndSuit) {
  const Trick trick = trick_of(0, {"5H"}, kSpades);
  const auto error = follow_suit_error(cards({"4S", "KH"}), trick, c("4S"), kSpades);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "you must follow suit: hearts were led and you hold hearts; 4S is a spade");
  const auto joker = follow_suit_error(cards({"BJ", "2C"}), trick_of(0, {"5C"}, kHeartsUptown),
                                       Card::big_joker(), kHeartsUptown);
  ASSERT_TRUE(joker);
  EXPECT_NE(joker->find("BJ is a joker (a heart here)"), std::string::npos) << *joker;
}

TEST(TrickPlay, RecordsTricksAndWinnerLeads) {
  TrickPlay play(4, 1);
  EXPECT_EQ(play.to_play(), 1);
  EXPECT_FALSE(play.play(c("5H"), kSpades));
  EXPECT_EQ(play.to_play(), 2);
  EXPECT_FALSE(play.play(c("KH"), kSpades));
  EXPECT_FALSE(play.play(c("2S"), kSpades));  // seat 3 trumps
  EXPECT_EQ(play.current().size(), 3);
  EXPECT_EQ(play.play(c("AH"), kSpades), std::optional<Seat>(3));
  EXPECT_TRUE(play.current().empty());
  EXPECT_EQ(play.current().leader(), 3);
  EXPECT_EQ(play.to_play(), 3);
  EXPECT_EQ(play.tricks_won(3), 1);
  EXPECT_EQ(play.team_tricks_won(1), 1);
  EXPECT_EQ(play.team_tricks_won(0), 0);
  ASSERT_NE(play.last_completed(), nullptr);
  EXPECT_EQ(play.last_completed()->winner, 3);
  EXPECT_EQ(play.played(), cards({"5H", "KH", "2S", "AH"}));
  EXPECT_EQ(completed_trick_to_json(*play.last_completed()).dump(),
            R"({"leader":1,"plays":[{"card":"5H","seat":1},{"card":"KH","seat":2},)"
            R"({"card":"2S","seat":3},{"card":"AH","seat":0}],"winner":3})");
  EXPECT_EQ(tricks_won_to_json(play).dump(), "[0,0,0,1]");
  play.play(c("3D"), kSpades);
  EXPECT_EQ(plays_to_json(play.current()).dump(), R"([{"card":"3D","seat":3}])");
}

TEST(TrickPlay, ThreeSeatsWrapAround) {
  TrickPlay play(3, 2);
  play.play(c("5C"), kNoTrump);
  EXPECT_EQ(play.to_play(), 0);
  play.play(c("9C"), kNoTrump);
  EXPECT_EQ(play.play(c("AD"), kNoTrump), std::optional<Seat>(0));
}

TEST(Seats, PartnershipsAndRotation) {
  EXPECT_EQ(team_of(0), 0);
  EXPECT_EQ(team_of(1), 1);
  EXPECT_EQ(team_of(2), 0);
  EXPECT_EQ(team_of(3), 1);
  EXPECT_EQ(partner_of(0), 2);
  EXPECT_EQ(partner_of(3), 1);
  EXPECT_EQ(next_dealer(3, 4), 0);
  EXPECT_EQ(left_of(4, 5), 0);
  EXPECT_EQ(next_seat(1, 2), 0);
}

TEST(DealHands, RoundRobinFromFirst) {
  const std::vector<Card> deck = {c("2C"), c("3C"), c("4C"), c("5C"), c("6C"), c("7C"), c("8C")};
  const auto hands = deal_hands(deck, 3, 2, 1);
  ASSERT_EQ(hands.size(), 3U);
  EXPECT_EQ(hands[1], cards({"2C", "5C"}));
  EXPECT_EQ(hands[2], cards({"3C", "6C"}));
  EXPECT_EQ(hands[0], cards({"4C", "7C"}));  // 8C stays undealt
}

TEST(ScoreTable, RunningTotalsAndJson) {
  ScoreTable table(2);
  table.add_hand({50, -40}, {{"bags", {1, 0}}});
  table.add_hand({-100, 72});
  EXPECT_EQ(table.hands(), 2);
  EXPECT_EQ(table.total(0), -50);
  EXPECT_EQ(table.total(1), 32);
  EXPECT_EQ(table.to_json().dump(),
            R"({"hands":[{"detail":{"bags":[1,0]},"hand":1,"points":[50,-40],"totals":[50,-40]},)"
            R"({"hand":2,"points":[-100,72],"totals":[-50,32]}],"totals":[-50,32]})");
  EXPECT_EQ(table.to_json(1)["hands"].size(), 1U);
  EXPECT_EQ(table.to_json(1)["hands"][0]["hand"], 2);
}

TEST(RankOrder, UptownDowntown) {
  EXPECT_EQ(kHeartsUptown.rank_order(Rank::kAce), 13);
  EXPECT_EQ(kHeartsUptown.rank_order(Rank::kKing), 12);
  EXPECT_EQ(kHeartsUptown.rank_order(Rank::kTwo), 1);
  EXPECT_EQ(kHeartsDowntown.rank_order(Rank::kAce), 13);
  EXPECT_EQ(kHeartsDowntown.rank_order(Rank::kTwo), 12);
  EXPECT_EQ(kHeartsDowntown.rank_order(Rank::kKing), 1);
}

TEST(CheckPlay, RejectionCodes) {
  const CardSet hand = cards({"4S", "KH", "2C"});
  const Trick trick = trick_of(0, {"5H"}, kSpades);
  struct Case {
    Json move;
    const char* code;  // nullptr: accepted
  };
  const std::vector<Case> cases = {
      {{{"action", "play"}, {"card", "KH"}}, nullptr},
      {{{"action", "play"}, {"card", "4S"}}, "must_follow_suit"},
      {{{"action", "play"}, {"card", "AH"}}, "card_not_held"},
      {{{"action", "play"}, {"card", "ZZ"}}, "illegal_move"},
      {{{"action", "play"}, {"card", 7}}, "illegal_move"},
      {{{"action", "play"}}, "illegal_move"},
      {Json(nullptr), "illegal_move"},
  };
  for (const auto& tc : cases) {
    MoveResult rejection;
    const auto card = check_play(tc.move, hand, trick, kSpades, rejection);
    if (tc.code == nullptr) {
      EXPECT_EQ(card, c("KH")) << tc.move.dump();
    } else {
      EXPECT_FALSE(card) << tc.move.dump();
      EXPECT_EQ(rejection.code(), tc.code) << tc.move.dump();
      EXPECT_FALSE(rejection.message().empty());
    }
  }
  EXPECT_EQ(play_moves(cards({"KH", "2C"})).dump(),
            R"([{"action":"play","card":"2C"},{"action":"play","card":"KH"}])");
}

}  // namespace
}  // namespace parlor::tricks
