// Spades engine scenarios (https://www.pagat.com/auctionwhist/spades.html): bidding, rejections,
// spades broken, nil and blind nil through whole hands, bags, game end, views.
#include "games/spades/spades.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "games/core/options.h"

namespace parlor::spades {
namespace {

Json options(Json given = Json::object()) {
  std::string error;
  auto normalized = normalize_options(spades_info().options, given, error);
  EXPECT_TRUE(normalized) << error;
  return *normalized;
}

Card c(const char* text) { return *parse_card(text); }

CardSet whole_suit(Suit suit) {
  return CardSet(std::uint64_t{0x1FFF} << (13 * static_cast<int>(suit)));
}

Json bid(int n) { return {{"action", "bid"}, {"tricks", n}}; }
Json play(const char* card) { return {{"action", "play"}, {"card", card}}; }

// Each seat holds one whole suit: seat 0 clubs, 1 diamonds, 2 hearts, 3 spades (unless
// `spade_seat` moves the spades). Whoever holds the spades wins all 13 tricks.
SpadesSetup one_suit_each(Seat spade_seat = 3) {
  SpadesSetup setup;
  const Suit others[3] = {Suit::kClubs, Suit::kDiamonds, Suit::kHearts};
  int next = 0;
  for (Seat s = 0; s < kSeats; ++s) {
    setup.hands[static_cast<std::size_t>(s)] =
        s == spade_seat ? whole_suit(Suit::kSpades) : whole_suit(others[next++]);
  }
  return setup;
}

void bid_all(SpadesGame& game, const std::vector<Json>& bids) {
  for (const Json& b : bids) {
    const Seat seat = game.to_act().at(0);
    auto r = game.apply(seat, b);
    ASSERT_TRUE(r.ok()) << b.dump() << " " << r.message();
  }
}

// Plays the first legal card for whoever is to act until the hand ends.
void play_hand(SpadesGame& game) {
  const int hand = game.hand_number();
  while (game.phase() == SpadesGame::Phase::kPlay && game.hand_number() == hand) {
    const Seat seat = game.to_act().at(0);
    auto r = game.apply(seat, game.legal_moves(seat).at(0));
    ASSERT_TRUE(r.ok()) << r.message();
  }
}

TEST(Spades, BiddingOnceAroundFromDealersLeft) {
  SpadesGame game(options(), 7);
  EXPECT_EQ(game.dealer(), 3);
  EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
  EXPECT_EQ(game.apply(1, bid(3)).code(), "not_your_turn");
  ASSERT_TRUE(game.apply(0, bid(0)).ok());
  ASSERT_TRUE(game.apply(1, bid(4)).ok());
  ASSERT_TRUE(game.apply(2, bid(3)).ok());
  EXPECT_EQ(game.phase(), SpadesGame::Phase::kBid);
  auto r = game.apply(3, bid(5));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.events().back()["type"], "contracts");
  EXPECT_EQ(game.phase(), SpadesGame::Phase::kPlay);
  EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
  const Json v = game.view(kSpectator);
  EXPECT_EQ(v["bids"], Json::parse(R"(["nil",4,3,5])"));
  EXPECT_EQ(v["contracts"], Json::parse("[3,9]"));
  const CardSet hand = game.hand(0);
  const CardSet leads =
      hand.of_suit(Suit::kSpades) == hand ? hand : hand - hand.of_suit(Suit::kSpades);
  EXPECT_EQ(game.legal_moves(0).size(), static_cast<std::size_t>(leads.size()));
}

TEST(Spades, BidRejections) {
  struct Case {
    Json move;
    const char* code;
  };
  const std::vector<Case> cases = {
      {bid(14), "illegal_bid"},
      {bid(-1), "illegal_bid"},
      {{{"action", "bid"}, {"tricks", "3"}}, "illegal_bid"},
      {{{"action", "bid"}, {"tricks", 3.5}}, "illegal_bid"},
      {{{"action", "bid"}, {"tricks", 1e20}}, "illegal_bid"},
      {{{"action", "bid"}, {"tricks", 18446744073709551615ULL}}, "illegal_bid"},
      {{{"action", "bid"}}, "illegal_bid"},
      {{{"action", "bid"}, {"blind_nil", true}}, "illegal_bid"},  // option off
      {{{"action", "bid"}, {"blind_nil", "yes"}}, "illegal_bid"},
      {play("2C"), "wrong_phase"},
      {{{"action", "look"}}, "wrong_phase"},
      {{{"action", "pass"}}, "illegal_move"},
      {Json(nullptr), "illegal_move"},
      {Json::array(), "illegal_move"},
  };
  SpadesGame game(options(), 3);
  const auto hash = game.state_hash();
  for (const auto& tc : cases) {
    auto r = game.apply(0, tc.move);
    EXPECT_FALSE(r.ok()) << tc.move.dump();
    EXPECT_EQ(r.code(), tc.code) << tc.move.dump();
    EXPECT_FALSE(r.message().empty());
    EXPECT_EQ(game.state_hash(), hash);
  }
  EXPECT_NE(game.apply(0, bid(14)).message().find("14"), std::string::npos);
}

TEST(Spades, PlayRejections) {
  SpadesSetup setup;
  setup.hands = {CardSet{c("2C"), c("3H"), c("4S")}, CardSet{c("5C"), c("6S"), c("7D")},
                 CardSet{c("8C"), c("9H"), c("TS")}, CardSet{c("JD"), c("QS"), c("KH")}};
  auto game = SpadesGame::create_with_setup(options(), setup);
  bid_all(*game, {bid(1), bid(1), bid(1), bid(1)});
  EXPECT_EQ(game->apply(0, play("AS")).code(), "card_not_held");
  auto r = game->apply(0, play("4S"));
  EXPECT_EQ(r.code(), "spades_not_broken");
  EXPECT_NE(r.message().find("4S"), std::string::npos);
  EXPECT_EQ(game->apply(0, bid(2)).code(), "wrong_phase");
  EXPECT_EQ(game->apply(0, {{"action", "play"}, {"card", "XX"}}).code(), "illegal_move");
  EXPECT_EQ(game->apply(1, play("5C")).code(), "not_your_turn");
  ASSERT_TRUE(game->apply(0, play("2C")).ok());
  r = game->apply(1, play("6S"));
  EXPECT_EQ(r.code(), "must_follow_suit");
  EXPECT_EQ(r.message(), "you must follow suit: clubs were led and you hold clubs; 6S is a spade");
  ASSERT_TRUE(game->apply(1, play("5C")).ok());
  ASSERT_TRUE(game->apply(2, play("8C")).ok());
  // Seat 3 has no club: anything goes, and the spade breaks spades.
  r = game->apply(3, play("QS"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.events()[1]["type"], "spades_broken");
  EXPECT_EQ(r.events()[2]["type"], "trick");
  EXPECT_EQ(r.events()[2]["winner"], 3);
  // Broken: the winner may lead a spade now, holding other suits.
  EXPECT_TRUE(game->apply(3, play("JD")).ok());
}

TEST(Spades, SpadesBrokenRule) {
  SpadesSetup setup;
  setup.hands = {CardSet{c("2C"), c("3H"), c("4S")}, CardSet{c("5C"), c("6S"), c("7D")},
                 CardSet{c("8C"), c("9H"), c("TS")}, CardSet{c("JD"), c("QS"), c("KH")}};
  // Seat 3 holds only spades at its first lead: leading one is allowed.
  SpadesSetup only_spades = setup;
  only_spades.hands[0] = CardSet{c("2S"), c("3S"), c("4S")};
  only_spades.hands[3] = CardSet{c("JD"), c("2C"), c("KH")};
  auto game = SpadesGame::create_with_setup(options(), only_spades);
  bid_all(*game, {bid(1), bid(1), bid(1), bid(1)});
  EXPECT_EQ(game->legal_moves(0).size(), 3U);
  EXPECT_TRUE(game->apply(0, play("2S")).ok());
  EXPECT_TRUE(game->view(0)["spades_broken"].get<bool>());

  // Before any spade is played, legal leads exclude spades.
  game = SpadesGame::create_with_setup(options(), setup);
  bid_all(*game, {bid(1), bid(1), bid(1), bid(1)});
  EXPECT_EQ(game->legal_moves(0), Json::parse(R"([{"action":"play","card":"2C"},
                                                  {"action":"play","card":"3H"}])"));
  // Clubs: everyone follows, no spade played; seat 2 wins with 8C and still may not lead TS.
  ASSERT_TRUE(game->apply(0, play("2C")).ok());
  ASSERT_TRUE(game->apply(1, play("5C")).ok());
  ASSERT_TRUE(game->apply(2, play("8C")).ok());
  ASSERT_TRUE(game->apply(3, play("JD")).ok());
  EXPECT_EQ(game->to_act(), std::vector<Seat>{2});
  EXPECT_EQ(game->apply(2, play("TS")).code(), "spades_not_broken");
  ASSERT_TRUE(game->apply(2, play("9H")).ok());
  ASSERT_TRUE(game->apply(3, play("KH")).ok());
  ASSERT_TRUE(game->apply(0, play("3H")).ok());
  // Seat 1 is void in hearts and trumps: spades are broken, and the 6S wins.
  auto r = game->apply(1, play("6S"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(game->to_act(), std::vector<Seat>{1});
  EXPECT_TRUE(game->view(kSpectator)["spades_broken"].get<bool>());
}

struct HandCase {
  const char* name;
  Json options;
  Seat spade_seat;         // who takes all 13 tricks
  std::vector<Json> bids;  // seats 0,1,2,3 (dealer 3)
  std::array<int, 2> points_before;
  std::array<int, 2> bags_before;
  std::array<int, 2> points_after;
  std::array<int, 2> bags_after;
  bool finished;
  std::vector<Seat> winners;
};

TEST(Spades, WholeHandScoring) {
  const Json nil = bid(0);
  const Json blind = {{"action", "bid"}, {"blind_nil", true}};
  const Json look = {{"action", "look"}};
  const std::vector<HandCase> cases = {
      {"nil made both sides, 8 bags",
       Json::object(),
       3,
       {nil, nil, bid(3), bid(5)},
       {0, 0},
       {0, 0},
       {70, 158},
       {0, 8},
       false,
       {}},
      {"bags carry over across 10",
       Json::object(),
       3,
       {nil, nil, bid(3), bid(5)},
       {0, 0},
       {0, 5},
       {70, 58},
       {0, 3},
       false,
       {}},
      {"failed nil, no_count: bags and -200",
       Json::object(),
       1,
       {bid(1), nil, bid(1), bid(4)},
       {0, 0},
       {0, 0},
       {-20, -227},
       {0, 3},
       true,
       {0, 2}},
      {"failed nil, count_for_partner",
       {{"failed_nil", "count_for_partner"}},
       1,
       {bid(1), nil, bid(1), bid(4)},
       {0, 0},
       {0, 0},
       {-20, -51},
       {0, 9},
       false,
       {}},
      {"reaching the target wins",
       Json::object(),
       3,
       {bid(1), bid(1), bid(1), bid(5)},
       {0, 450},
       {0, 0},
       {-20, 517},
       {0, 7},
       true,
       {1, 3}},
      {"tie at target plays another hand",
       Json::object(),
       3,
       {nil, nil, bid(3), bid(5)},
       {450, 362},
       {0, 0},
       {520, 520},
       {0, 8},
       false,
       {}},
      {"blind nil made",
       {{"blind_nil", true}},
       3,
       {blind, look, nil, look, bid(3), look, bid(5)},
       {0, 0},
       {0, 0},
       {170, 158},
       {0, 8},
       false,
       {}},
  };
  for (const auto& tc : cases) {
    SpadesSetup setup = one_suit_each(tc.spade_seat);
    setup.points = tc.points_before;
    setup.bags = tc.bags_before;
    auto game = SpadesGame::create_with_setup(options(tc.options), setup);
    bid_all(*game, tc.bids);
    play_hand(*game);
    EXPECT_EQ(game->points(0), tc.points_after[0]) << tc.name;
    EXPECT_EQ(game->points(1), tc.points_after[1]) << tc.name;
    EXPECT_EQ(game->bags(0), tc.bags_after[0]) << tc.name;
    EXPECT_EQ(game->bags(1), tc.bags_after[1]) << tc.name;
    EXPECT_EQ(game->finished(), tc.finished) << tc.name;
    if (tc.finished) {
      EXPECT_EQ(game->result()["winners"], Json(tc.winners)) << tc.name;
      EXPECT_EQ(game->result()["team_scores"], Json(tc.points_after)) << tc.name;
    } else {
      EXPECT_EQ(game->phase(), SpadesGame::Phase::kHandOver) << tc.name;
      EXPECT_EQ(game->to_act(), std::vector<Seat>{0}) << tc.name;  // the next dealer
      EXPECT_EQ(game->apply(0, bid(1)).code(), "wrong_phase") << tc.name;
      EXPECT_FALSE(game->view(kSpectator)["last_trick"].is_null()) << tc.name;
      auto r = game->apply(0, {{"action", "deal"}});
      ASSERT_TRUE(r.ok()) << tc.name;
      EXPECT_EQ(r.events()[0]["type"], "deal") << tc.name;
      EXPECT_EQ(game->hand_number(), 2) << tc.name;
      EXPECT_EQ(game->dealer(), 0) << tc.name;
      EXPECT_EQ(game->to_act(), std::vector<Seat>{1}) << tc.name;
      EXPECT_TRUE(game->view(kSpectator)["last_trick"].is_null()) << tc.name;
      EXPECT_EQ(game->view(1)["hand_counts"][1], 13) << tc.name;
    }
  }
}

TEST(Spades, BlindNilLookStep) {
  SpadesGame game(options({{"blind_nil", true}}), 11);
  EXPECT_EQ(game.phase(), SpadesGame::Phase::kLook);
  for (Seat s = 0; s < kSeats; ++s) EXPECT_TRUE(game.view(s)["hand"].is_null()) << s;
  EXPECT_EQ(game.prompt(0), Json::parse(R"({"actions":["look","bid"],"legal":[
      {"action":"look"},{"action":"bid","blind_nil":true}]})"));
  EXPECT_EQ(game.apply(0, bid(3)).code(), "wrong_phase");
  auto r = game.apply(0, {{"action", "bid"}, {"blind_nil", true}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.events()[0]["bid"], "blind_nil");
  EXPECT_EQ(game.view(0)["hand"].size(), 13U);
  EXPECT_TRUE(game.view(1)["hand"].is_null());
  ASSERT_TRUE(game.apply(1, {{"action", "look"}}).ok());
  EXPECT_EQ(game.view(1)["hand"].size(), 13U);
  EXPECT_EQ(game.phase(), SpadesGame::Phase::kBid);
  EXPECT_EQ(game.apply(1, {{"action", "bid"}, {"blind_nil", true}}).code(), "illegal_bid");
  EXPECT_EQ(game.apply(1, {{"action", "look"}}).code(), "wrong_phase");
  EXPECT_EQ(game.legal_moves(1).size(), 14U);
  ASSERT_TRUE(game.apply(1, bid(2)).ok());
  EXPECT_EQ(game.phase(), SpadesGame::Phase::kLook);
  EXPECT_EQ(game.view(kSpectator)["bids"], Json::parse(R"(["blind_nil",2,null,null])"));
  EXPECT_EQ(game.view(kSpectator)["looked"], Json::parse("[true,true,false,false]"));
}

TEST(Spades, ViewsAndResult) {
  SpadesGame game(options(), 5);
  const Json spectator = game.view(kSpectator);
  EXPECT_FALSE(spectator.contains("hand"));
  EXPECT_TRUE(spectator["you"].is_null());
  EXPECT_EQ(spectator["hand_counts"], Json::parse("[13,13,13,13]"));
  EXPECT_EQ(spectator["phase"], "bid");
  EXPECT_EQ(spectator["turn"], 0);
  EXPECT_EQ(spectator["target"], 500);
  EXPECT_EQ(spectator["scores"], Json::parse(R"([{"bags":0,"points":0},{"bags":0,"points":0}])"));
  const Json mine = game.view(2);
  EXPECT_EQ(mine["you"], 2);
  EXPECT_EQ(mine["hand"].size(), 13U);
  EXPECT_TRUE(game.result().is_null());
  EXPECT_TRUE(game.prompt(1).is_null());
  bid_all(game, {bid(2), bid(3), bid(4), bid(2)});
  const Seat seat = game.to_act()[0];
  ASSERT_TRUE(game.apply(seat, game.legal_moves(seat)[0]).ok());
  const Json v = game.view(1);
  EXPECT_EQ(v["trick"].size(), 1U);
  EXPECT_EQ(v["trick"][0]["seat"], 0);
  EXPECT_EQ(v["hand_counts"], Json::parse("[12,13,13,13]"));
}

TEST(Spades, GameEndsWithResultForBothPartners) {
  SpadesSetup setup = one_suit_each(3);
  setup.points = {0, 490};
  auto game = SpadesGame::create_with_setup(options(), setup);
  bid_all(*game, {bid(1), bid(1), bid(1), bid(5)});
  play_hand(*game);
  ASSERT_TRUE(game->finished());
  const Json result = game->result();
  EXPECT_EQ(result["scores"], Json::parse("[-20,557,-20,557]"));
  EXPECT_EQ(result["winners"], Json::parse("[1,3]"));
  EXPECT_TRUE(game->to_act().empty());
  EXPECT_EQ(game->apply(0, bid(1)).code(), "game_over");
}

}  // namespace
}  // namespace parlor::spades
