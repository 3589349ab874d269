// Agram scenarios (https://www.pagat.com/last/agram.html): the deck, following suit without
// having to beat, only the sixth trick counting, deals to a target, rejections and views.
#include "games/agram/agram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "games/core/options.h"

namespace parlor::agram {
namespace {

Json options(Json given = Json::object()) {
  std::string error;
  auto normalized = normalize_options(agram_info().options, given, error);
  EXPECT_TRUE(normalized) << error;
  return *normalized;
}

Card c(const char* text) { return *parse_card(text); }

CardSet cards(std::initializer_list<const char*> texts) {
  CardSet out;
  for (const char* t : texts) out.add(c(t));
  return out;
}

Json play(const char* card) { return {{"action", "play"}, {"card", card}}; }

// Plays `cards` in turn order (whoever is to act plays the next one).
void play_all(AgramGame& game, const std::vector<const char*>& cards) {
  for (const char* card : cards) {
    const Seat seat = game.to_act().at(0);
    auto r = game.apply(seat, play(card));
    ASSERT_TRUE(r.ok()) << "seat " << seat << " " << card << ": " << r.message();
  }
}

TEST(Agram, DeckHas35CardsWithoutTheAceOfSpades) {
  const CardSet deck = agram_deck();
  EXPECT_EQ(deck.size(), 35);
  EXPECT_FALSE(deck.contains(c("AS")));
  EXPECT_TRUE(deck.contains(c("AH")));
  EXPECT_TRUE(deck.contains(c("3C")));
  EXPECT_FALSE(deck.contains(c("2C")));
  EXPECT_FALSE(deck.contains(c("KD")));
  EXPECT_FALSE(deck.contains(c("JH")));
}

TEST(Agram, DealsSixEachAndKeepsTheRestHidden) {
  for (int seats = kMinSeats; seats <= kMaxSeats; ++seats) {
    AgramGame game(options(), seats, 42);
    CardSet all;
    for (Seat s = 0; s < seats; ++s) {
      EXPECT_EQ(game.hand(s).size(), kHandSize);
      EXPECT_FALSE(all.intersects(game.hand(s)));
      all.add_all(game.hand(s));
    }
    const Json state = game.full_state();
    EXPECT_EQ(state["undealt"].size(), static_cast<std::size_t>(35 - 6 * seats));
    EXPECT_EQ(game.dealer(), seats - 1);
    EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
    const Json spectator = game.view(kSpectator);
    EXPECT_FALSE(spectator.contains("hand"));
    EXPECT_FALSE(spectator.contains("undealt"));
    EXPECT_EQ(game.view(1)["hand"].size(), 6U);
  }
}

TEST(Agram, FollowSuitWithoutBeatingAndRejections) {
  // Two players, dealer 1: seat 0 leads.
  auto game = AgramGame::create_with_hands(
      options(),
      {cards({"9C", "3D", "4D", "5D", "6D", "7D"}), cards({"AC", "3C", "AH", "TH", "9H", "8H"})},
      1);
  EXPECT_EQ(game->apply(1, play("AC")).code(), "not_your_turn");
  EXPECT_EQ(game->apply(0, play("AS")).code(), "card_not_held");
  EXPECT_EQ(game->apply(0, play("KD")).code(), "card_not_held");
  EXPECT_EQ(game->apply(0, {{"action", "play"}}).code(), "illegal_move");
  EXPECT_EQ(game->apply(0, {{"action", "bid"}, {"tricks", 1}}).code(), "illegal_move");
  EXPECT_EQ(game->apply(0, {{"action", "deal"}}).code(), "wrong_phase");
  EXPECT_EQ(game->apply(0, Json(nullptr)).code(), "illegal_move");
  ASSERT_TRUE(game->apply(0, play("9C")).ok());
  // Seat 1 must follow clubs but need not beat: both clubs are legal, hearts are not.
  EXPECT_EQ(game->legal_moves(1), Json::parse(R"([{"action":"play","card":"3C"},
                                                   {"action":"play","card":"AC"}])"));
  auto r = game->apply(1, play("AH"));
  EXPECT_EQ(r.code(), "must_follow_suit");
  EXPECT_EQ(r.message(), "you must follow suit: clubs were led and you hold clubs; AH is a heart");
  ASSERT_TRUE(game->apply(1, play("3C")).ok());
  EXPECT_EQ(game->to_act(), std::vector<Seat>{0});  // 9C won: its player leads again
  EXPECT_EQ(game->view(kSpectator)["tricks_won"], Json::parse("[1,0]"));
}

struct LastTrickCase {
  const char* name;
  std::vector<CardSet> hands;
  Seat dealer;
  std::vector<const char*> plays;  // all six tricks, in turn order
  Seat deal_winner;
};

TEST(Agram, OnlyTheSixthTrickCounts) {
  const std::vector<LastTrickCase> cases = {
      {"won five, lost the sixth",
       {cards({"AC", "AD", "AH", "TC", "TD", "3H"}), cards({"3C", "3D", "4H", "4C", "4D", "5H"})},
       1,
       {"AC", "3C", "AD", "3D", "AH", "4H", "TC", "4C", "TD", "4D", "3H", "5H"},
       1},
      {"off-suit higher cards never win the last trick",
       {cards({"9C", "9D", "9H", "8C", "8D", "3S"}), cards({"3C", "3D", "3H", "4C", "4D", "AH"}),
        cards({"5C", "5D", "5H", "6C", "6D", "AD"}), cards({"7C", "7D", "7H", "6H", "7S", "TH"})},
       3,
       {"9C", "3C", "5C", "7C",   // seat 0 wins each of the first five tricks and leads
        "9D", "3D", "5D", "7D",   //
        "9H", "3H", "5H", "7H",   //
        "8C", "4C", "6C", "6H",   //
        "8D", "4D", "6D", "7S",   //
        "3S", "AH", "AD", "TH"},  // 3S led: no one else has a spade, the 3 wins
       0},
      {"three players: the highest card of the led suit wins the sixth",
       {cards({"3C", "4C", "5C", "6C", "7C", "3D"}), cards({"8C", "9C", "TC", "AC", "3H", "AD"}),
        cards({"4D", "5D", "6D", "7D", "8D", "9D"})},
       2,
       {"3C", "8C", "4D",  // seat 1 wins and leads from now on
        "9C", "5D", "4C", "TC", "6D", "5C", "AC", "7D", "6C", "3H", "8D",
        "7C",               // nobody else has a heart: 3H wins
        "AD", "9D", "3D"},  // both follow diamonds; AD wins the sixth trick
       1},
  };
  for (const auto& tc : cases) {
    auto game = AgramGame::create_with_hands(options(), tc.hands, tc.dealer);
    play_all(*game, tc.plays);
    ASSERT_TRUE(game->finished()) << tc.name;
    const Json result = game->result();
    EXPECT_EQ(result["winners"], Json::array({tc.deal_winner})) << tc.name;
    for (Seat s = 0; s < static_cast<Seat>(tc.hands.size()); ++s) {
      EXPECT_EQ(result["scores"][s], s == tc.deal_winner ? 1 : 0) << tc.name << " seat " << s;
    }
  }
}

TEST(Agram, DealsUntilTheTarget) {
  AgramGame game(options({{"target", 3}}), 3, 9);
  int deals = 0;
  while (!game.finished()) {
    const Seat dealer = game.dealer();
    EXPECT_EQ(game.to_act(), std::vector<Seat>{(dealer + 1) % 3});  // left of the dealer leads
    while (game.phase() == AgramGame::Phase::kPlay) {
      const Seat seat = game.to_act()[0];
      ASSERT_TRUE(game.apply(seat, game.legal_moves(seat)[0]).ok());
    }
    ++deals;
    if (game.finished()) break;
    EXPECT_EQ(game.phase(), AgramGame::Phase::kDealOver);
    const Seat next_dealer = (dealer + 1) % 3;
    EXPECT_EQ(game.to_act(), std::vector<Seat>{next_dealer});
    EXPECT_EQ(game.prompt(next_dealer), Json::parse(R"({"actions":["deal"],
                                                        "legal":[{"action":"deal"}]})"));
    EXPECT_FALSE(game.view(kSpectator)["last_trick"].is_null());
    EXPECT_EQ(game.apply(next_dealer, play("AH")).code(), "wrong_phase");
    ASSERT_TRUE(game.apply(next_dealer, {{"action", "deal"}}).ok());
    EXPECT_EQ(game.dealer(), next_dealer);
    EXPECT_EQ(game.deal_number(), deals + 1);
  }
  int total = 0, best = 0;
  for (Seat s = 0; s < 3; ++s) {
    total += game.score(s);
    best = std::max(best, game.score(s));
  }
  EXPECT_EQ(total, deals);
  EXPECT_EQ(best, 3);
  EXPECT_EQ(game.result()["winners"].size(), 1U);
  EXPECT_EQ(game.score(game.result()["winners"][0].get<int>()), 3);
  EXPECT_EQ(game.apply(0, play("AH")).code(), "game_over");
}

TEST(Agram, ViewFields) {
  AgramGame game(options(), 4, 3);
  const Seat seat = game.to_act()[0];
  ASSERT_TRUE(game.apply(seat, game.legal_moves(seat)[0]).ok());
  const Json v = game.view(2);
  EXPECT_EQ(v["phase"], "play");
  EXPECT_EQ(v["you"], 2);
  EXPECT_EQ(v["hand"].size(), 6U);
  EXPECT_EQ(v["hand_counts"], Json::parse("[5,6,6,6]"));
  EXPECT_EQ(v["trick"].size(), 1U);
  EXPECT_EQ(v["trick_number"], 1);
  EXPECT_EQ(v["turn"], 1);
  EXPECT_EQ(v["scores"], Json::parse("[0,0,0,0]"));
  EXPECT_EQ(v["target"], 1);
  EXPECT_TRUE(v["last_trick"].is_null());
  EXPECT_TRUE(game.prompt(2).is_null());
  EXPECT_EQ(game.prompt(1)["actions"], Json::parse(R"(["play"])"));
}

}  // namespace
}  // namespace parlor::agram
