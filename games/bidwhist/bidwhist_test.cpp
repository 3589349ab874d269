// Stacked-deck scenario tests of the Bid Whist state machine: the auction and its variant,
// declaration, the kitty's visibility, the discard, play, scoring and the end of the game, and
// every rejection code.
#include "games/bidwhist/bidwhist.h"

#include <gtest/gtest.h>

#include <sstream>

#include "games/testing/card_text.h"
#include "games/testing/self_play.h"

namespace parlor::bidwhist {
namespace {

using testing::cards_mentioned;

using parlor::testing::cards;

Json bid(int books, const char* type) {
  return {{"action", "bid"}, {"books", books}, {"type", type}};
}
const Json kPass = {{"action", "pass"}};
Json play(const char* card) { return {{"action", "play"}, {"card", card}}; }
Json discard(const std::string& text) {
  Json list = Json::array();
  std::istringstream in(text);
  std::string word;
  while (in >> word) list.push_back(word);
  return {{"action", "discard"}, {"cards", list}};
}

// Card index i (0..47) to seat i % 4; the kitty is JS QS KS AS LJ BJ.
//   seat 0: 2C 6C TC AC 5D 9D KD 4H 8H QH 3S 7S
//   seat 1: 3C 7C JC 2D 6D TD AD 5H 9H KH 4S 8S
//   seat 2: 4C 8C QC 3D 7D JD 2H 6H TH AH 5S 9S
//   seat 3: 5C 9C KC 4D 8D QD 3H 7H JH 2S 6S TS
std::unique_ptr<BidWhistGame> mixed_deal(Auction auction = Auction::kOnceAround, int target = 7) {
  std::array<CardSet, kSeats> hands{};
  for (int i = 0; i < 48; ++i) hands[static_cast<std::size_t>(i % 4)].add(Card::from_index(i));
  return BidWhistGame::create_with_deal(auction, target, /*dealer=*/3, hands,
                                        cards("JS QS KS AS LJ BJ"), /*seed=*/42);
}

// Each seat holds one suit from the ace down to the three; the kitty is the deuces and jokers.
std::unique_ptr<BidWhistGame> suited_deal(int target = 7) {
  return BidWhistGame::create_with_deal(
      Auction::kOnceAround, target, /*dealer=*/3,
      {cards("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"), cards("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H"),
       cards("AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D"), cards("AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C")},
      cards("2S 2H 2D 2C LJ BJ"), /*seed=*/7);
}

void accept(Game& game, Seat seat, const Json& move) {
  const auto r = game.apply(seat, move);
  ASSERT_TRUE(r.ok()) << move.dump() << ": " << r.code() << " " << r.message();
}

void expect_rejected(Game& game, Seat seat, const Json& move, const std::string& code,
                     const std::string& message_part = "") {
  const auto before = game.state_hash();
  const auto r = game.apply(seat, move);
  EXPECT_FALSE(r.ok()) << move.dump();
  EXPECT_EQ(r.code(), code) << move.dump() << ": " << r.message();
  EXPECT_NE(r.message().find(message_part), std::string::npos) << r.message();
  EXPECT_EQ(game.state_hash(), before) << "a rejection changed the state";
}

// Plays the first legal card for whoever is to act until the hand is over.
void play_out(BidWhistGame& game) {
  while (game.phase() == Phase::kPlaying) {
    const Seat seat = game.to_act().front();
    accept(game, seat, game.legal_moves(seat).front());
  }
}

TEST(BidWhist, DealsTwelveEachAndHidesTheKitty) {
  const GameInfo info = bidwhist_info();
  auto game = info.create({{"auction", "once_around"}, {"target", 7}}, 4, 123);
  const Json state = game->full_state();
  CardSet all = cards_mentioned(state["kitty"]);
  EXPECT_EQ(all.size(), kKittySize);
  for (int s = 0; s < kSeats; ++s) {
    const CardSet hand = cards_mentioned(state["hands"][s]);
    EXPECT_EQ(hand.size(), kHandSize);
    EXPECT_FALSE(all.intersects(hand));
    all.add_all(hand);
  }
  EXPECT_EQ(all.size(), 54);
  const CardSet kitty = cards_mentioned(state["kitty"]);
  for (Seat v = kSpectator; v < kSeats; ++v) {
    EXPECT_FALSE(cards_mentioned(game->view(v)).intersects(kitty)) << "viewer " << v;
  }
  const Json view = game->view(kSpectator);
  EXPECT_FALSE(view.contains("hand"));
  EXPECT_EQ(view["hand_counts"], Json({12, 12, 12, 12}));
  EXPECT_EQ(view["kitty_count"], 6);
  // The same seed deals the same cards; the first bidder sits left of the dealer.
  EXPECT_EQ(info.create({{"auction", "once_around"}, {"target", 7}}, 4, 123)->full_state(), state);
  EXPECT_EQ(game->to_act().front(), (state["dealer"].get<int>() + 1) % 4);
}

TEST(BidWhist, OnceAroundForcedDealer) {
  auto game = mixed_deal();
  accept(*game, 0, kPass);
  accept(*game, 1, kPass);
  accept(*game, 2, kPass);
  const Json legal = game->legal_moves(3);
  EXPECT_EQ(legal.size(), 15u);  // 3..7 books in three types, no pass
  EXPECT_EQ(game->prompt(3)["actions"], Json({"bid"}));
  expect_rejected(*game, 3, kPass, "must_bid", "dealer");
  accept(*game, 3, bid(3, "downtown"));
  EXPECT_EQ(game->phase(), Phase::kDeclaring);
  EXPECT_EQ(game->contract().declarer, 3);
  EXPECT_EQ(game->to_act(), std::vector<Seat>{3});
}

TEST(BidWhist, OnceAroundEndsWithTheDealer) {
  auto game = mixed_deal();
  // As parsed from the wire (an unsigned JSON number).
  accept(*game, 0, Json::parse(R"({"action":"bid","books":4,"type":"uptown"})"));
  expect_rejected(*game, 1, bid(4, "downtown"), "bid_too_low", "4 downtown");
  expect_rejected(*game, 1, bid(3, "no_trump"), "bid_too_low", "4 no trump");
  accept(*game, 1, bid(4, "no_trump"));
  expect_rejected(*game, 2, bid(4, "no_trump"), "bid_too_low");
  accept(*game, 2, bid(5, "downtown"));
  // The dealer may pass once someone has bid.
  EXPECT_EQ(game->legal_moves(3).front(), kPass);
  accept(*game, 3, kPass);
  EXPECT_EQ(game->phase(), Phase::kDeclaring);
  EXPECT_EQ(game->contract().declarer, 2);
  EXPECT_EQ(game->contract().bid, (Bid{5, BidType::kDowntown}));
  EXPECT_EQ(game->view(0)["bids"],
            Json::parse(R"([{"books":4,"type":"uptown"},{"books":4,"type":"no_trump"},
                            {"books":5,"type":"downtown"},"pass"])"));
}

TEST(BidWhist, NothingBeatsSevenNoTrump) {
  auto game = mixed_deal();
  accept(*game, 0, bid(7, "no_trump"));
  EXPECT_EQ(game->legal_moves(1), Json::array({kPass}));
  EXPECT_EQ(game->prompt(1)["actions"], Json({"pass"}));
  expect_rejected(*game, 1, bid(7, "uptown"), "bid_too_low", "only pass");
}

TEST(BidWhist, IllegalBids) {
  auto game = mixed_deal();
  for (const Json& move : {bid(2, "uptown"), bid(8, "uptown"),
                           Json{{"action", "bid"}, {"books", "4"}, {"type", "uptown"}},
                           Json{{"action", "bid"}, {"books", 4.0}, {"type", "uptown"}},
                           Json{{"action", "bid"}, {"books", 1e300}, {"type", "uptown"}},
                           Json{{"action", "bid"}, {"books", UINT64_MAX}, {"type", "uptown"}},
                           Json{{"action", "bid"}, {"books", -4}, {"type", "uptown"}},
                           Json{{"action", "bid"}, {"books", 4}}, bid(4, "sideways"),
                           Json{{"action", "bid"}, {"books", 4}, {"type", 1}}}) {
    expect_rejected(*game, 0, move, "illegal_bid");
  }
  expect_rejected(*game, 0, bid(9, "uptown"), "illegal_bid", "3 to 7");
  expect_rejected(*game, 0, bid(4, "sideways"), "illegal_bid", "\"sideways\"");
}

TEST(BidWhist, UntilPassedGoesRoundUntilThreePass) {
  auto game = mixed_deal(Auction::kUntilPassed);
  accept(*game, 0, bid(3, "uptown"));
  accept(*game, 1, kPass);
  accept(*game, 2, bid(4, "uptown"));
  accept(*game, 3, kPass);
  // Seat 0 has not passed, so the auction comes back to it; seat 1 is out.
  EXPECT_EQ(game->to_act(), std::vector<Seat>{0});
  accept(*game, 0, bid(5, "no_trump"));
  EXPECT_EQ(game->to_act(), std::vector<Seat>{2});
  accept(*game, 2, kPass);
  EXPECT_EQ(game->phase(), Phase::kDeclaring);
  EXPECT_EQ(game->contract().declarer, 0);
  EXPECT_EQ(game->contract().bid, (Bid{5, BidType::kNoTrump}));

  // The same calls in the reference auction end when the dealer has spoken.
  auto once = mixed_deal(Auction::kOnceAround);
  accept(*once, 0, bid(3, "uptown"));
  accept(*once, 1, kPass);
  accept(*once, 2, bid(4, "uptown"));
  accept(*once, 3, kPass);
  EXPECT_EQ(once->phase(), Phase::kDeclaring);
  EXPECT_EQ(once->contract().declarer, 2);
}

TEST(BidWhist, UntilPassedForcedDealer) {
  auto game = mixed_deal(Auction::kUntilPassed);
  accept(*game, 0, kPass);
  accept(*game, 1, kPass);
  accept(*game, 2, kPass);
  expect_rejected(*game, 3, kPass, "must_bid");
  accept(*game, 3, bid(3, "uptown"));
  EXPECT_EQ(game->phase(), Phase::kDeclaring);
  EXPECT_EQ(game->contract().declarer, 3);
}

TEST(BidWhist, WrongSeatAndWrongPhase) {
  auto game = mixed_deal();
  expect_rejected(*game, 1, kPass, "not_your_turn", "seat 0");
  expect_rejected(*game, kSpectator, kPass, "not_your_turn");
  expect_rejected(*game, 7, kPass, "not_your_turn");
  expect_rejected(*game, 0, play("2C"), "wrong_phase", "bidding");
  expect_rejected(*game, 0, discard("2C 6C TC AC 5D 9D"), "wrong_phase");
  expect_rejected(*game, 0, Json{{"action", "declare"}, {"trump", "S"}}, "wrong_phase");
  expect_rejected(*game, 0, Json{{"action", "deal"}}, "wrong_phase");
  expect_rejected(*game, 0, Json{{"action", "fold"}}, "illegal_move", "\"fold\"");
  expect_rejected(*game, 0, Json(nullptr), "illegal_move");
  expect_rejected(*game, 0, Json::array({"pass"}), "illegal_move");
  accept(*game, 0, bid(4, "uptown"));
  accept(*game, 1, kPass);
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  expect_rejected(*game, 0, bid(5, "uptown"), "wrong_phase", "declaring");
  expect_rejected(*game, 0, play("2C"), "wrong_phase");
}

TEST(BidWhist, DeclareTrumpOrDirection) {
  auto game = mixed_deal();
  accept(*game, 0, bid(4, "downtown"));
  for (int s = 1; s < 4; ++s) accept(*game, s, kPass);
  EXPECT_EQ(game->legal_moves(0).size(), 4u);
  expect_rejected(*game, 0, Json{{"action", "declare"}, {"direction", "uptown"}}, "illegal_move",
                  "trump suit");
  expect_rejected(*game, 0, Json{{"action", "declare"}, {"trump", "X"}}, "illegal_move");
  expect_rejected(*game, 0, Json{{"action", "declare"}, {"trump", 3}}, "illegal_move");
  expect_rejected(*game, 0, Json{{"action", "declare"}}, "illegal_move");
  accept(*game, 0, Json{{"action", "declare"}, {"trump", "H"}});
  EXPECT_EQ(game->contract().trump, Suit::kHearts);
  EXPECT_EQ(game->contract().direction, tricks::Direction::kDowntown);
  EXPECT_EQ(game->view(2)["contract"],
            Json::parse(R"({"declarer":0,"books":4,"type":"downtown","trump":"H",
                            "direction":"downtown"})"));

  auto nt = mixed_deal();
  accept(*nt, 0, kPass);
  accept(*nt, 1, bid(3, "no_trump"));
  accept(*nt, 2, kPass);
  accept(*nt, 3, kPass);
  EXPECT_EQ(nt->legal_moves(1), Json::parse(R"([{"action":"declare","direction":"uptown"},
                                                {"action":"declare","direction":"downtown"}])"));
  expect_rejected(*nt, 1, Json{{"action", "declare"}, {"trump", "S"}}, "illegal_move", "no trump");
  expect_rejected(*nt, 1, Json{{"action", "declare"}, {"direction", "sideways"}}, "illegal_move");
  accept(*nt, 1, Json{{"action", "declare"}, {"direction", "downtown"}});
  EXPECT_EQ(nt->contract().trump, std::nullopt);
  EXPECT_EQ(nt->view(kSpectator)["contract"]["direction"], "downtown");
}

TEST(BidWhist, KittyOnlyToTheDeclarerAndOnlyUntilTheDiscard) {
  auto game = mixed_deal();
  const CardSet kitty = cards("JS QS KS AS LJ BJ");
  accept(*game, 0, kPass);
  accept(*game, 1, bid(4, "uptown"));
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  for (Seat v = kSpectator; v < kSeats; ++v) {
    EXPECT_FALSE(cards_mentioned(game->view(v)).intersects(kitty)) << v;
  }
  const auto r = game->apply(1, Json{{"action", "declare"}, {"trump", "S"}});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(cards_mentioned(r.events()).intersects(kitty));
  EXPECT_EQ(game->hand(1).size(), 18);
  const Json declarer_view = game->view(1);
  EXPECT_EQ(cards_mentioned(declarer_view["kitty"]), kitty);
  EXPECT_EQ(declarer_view["kitty_count"], 0);
  for (Seat v : {kSpectator, 0, 2, 3}) {
    EXPECT_FALSE(cards_mentioned(game->view(v)).intersects(kitty)) << v;
    EXPECT_FALSE(game->view(v).contains("kitty")) << v;
  }
  // The discard prompt offers the 18 cards to choose 6 from.
  const Json prompt = game->prompt(1);
  EXPECT_EQ(prompt["actions"], Json({"discard"}));
  EXPECT_EQ(prompt["choose"]["action"], "discard");
  EXPECT_EQ(prompt["choose"]["field"], "cards");
  EXPECT_EQ(prompt["choose"]["count"], 6);
  EXPECT_EQ(cards_mentioned(prompt["choose"]["from"]), game->hand(1));
  EXPECT_EQ(game->legal_moves(1), Json::array());

  expect_rejected(*game, 1, discard("3C 7C JC 2D 6D"), "wrong_discard_count", "5");
  expect_rejected(*game, 1, discard("3C 7C JC 2D 6D TD AD"), "wrong_discard_count", "7");
  expect_rejected(*game, 1, discard(""), "wrong_discard_count");
  expect_rejected(*game, 1, discard("3C 7C JC 2D 6D 2C"), "card_not_held", "2C");
  expect_rejected(*game, 1, discard("3C 7C JC 2D 6D 6D"), "illegal_move", "twice");
  expect_rejected(*game, 1, discard("3C 7C JC 2D 6D XX"), "illegal_move");
  expect_rejected(*game, 1, Json{{"action", "discard"}, {"cards", "3C"}}, "illegal_move");

  const CardSet thrown = cards("3C 7C JC 2D 6D LJ");
  const auto d = game->apply(1, discard("3C 7C JC 2D 6D LJ"));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(cards_mentioned(d.events()).intersects(thrown | kitty));
  EXPECT_EQ(game->hand(1).size(), 12);
  for (Seat v = kSpectator; v < kSeats; ++v) {
    const Json view = game->view(v);
    EXPECT_FALSE(cards_mentioned(view).intersects(thrown)) << v;
    EXPECT_FALSE(view.contains("kitty")) << v;
    if (v != 1) {
      EXPECT_FALSE(cards_mentioned(view).intersects(kitty)) << v;
    }
  }
  // The discard is the declarers' first book; the declarer leads.
  EXPECT_EQ(game->view(0)["books"], Json({0, 1}));
  EXPECT_EQ(game->phase(), Phase::kPlaying);
  EXPECT_EQ(game->to_act(), std::vector<Seat>{1});
}

// Seat 1 declares 4 uptown in spades and discards; the hand is then played by table.
std::unique_ptr<BidWhistGame> spades_contract() {
  auto game = mixed_deal();
  accept(*game, 0, kPass);
  accept(*game, 1, bid(4, "uptown"));
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  accept(*game, 1, Json{{"action", "declare"}, {"trump", "S"}});
  accept(*game, 1, discard("3C 7C JC 2D 6D TD"));
  return game;
}

TEST(BidWhist, FollowingSuitAndTrickWinnerInPlay) {
  // Seat 1 holds 5H 9H KH AD 4S 8S JS QS KS AS LJ BJ.
  auto game = spades_contract();
  expect_rejected(*game, 1, play("3C"), "card_not_held", "3C");
  expect_rejected(*game, 1, play("ZZ"), "illegal_move");
  expect_rejected(*game, 1, Json{{"action", "play"}}, "illegal_move");
  accept(*game, 1, play("LJ"));  // a joker led in a spade contract calls for spades
  // Seat 2: 4C 8C QC 3D 7D JD 2H 6H TH AH 5S 9S.
  EXPECT_EQ(cards_mentioned(game->legal_moves(2)), cards("5S 9S"));
  expect_rejected(*game, 2, play("AH"), "must_follow_suit", "AH");
  accept(*game, 2, play("9S"));
  accept(*game, 3, play("TS"));
  accept(*game, 0, play("7S"));
  EXPECT_EQ(game->view(kSpectator)["last_trick"]["winner"], 1);
  EXPECT_EQ(game->view(kSpectator)["tricks_won"], Json({0, 1, 0, 0}));
  EXPECT_EQ(game->view(kSpectator)["books"], Json({0, 2}));
  // Seat 1 leads a heart; seat 2 follows; seat 3 (3H 7H JH) follows; seat 0 (4H 8H QH) too.
  accept(*game, 1, play("5H"));
  accept(*game, 2, play("AH"));
  const Json view = game->view(3);
  EXPECT_EQ(view["trick"], Json::parse(R"([{"seat":1,"card":"5H"},{"seat":2,"card":"AH"}])"));
  EXPECT_EQ(view["led_suit"], "H");
  EXPECT_EQ(view["leader"], 1);
  EXPECT_EQ(view["turn"], 3);
}

TEST(BidWhist, NoTrumpLedJokerLeavesTheSuitOpen) {
  auto game = mixed_deal();
  accept(*game, 0, kPass);
  accept(*game, 1, bid(3, "no_trump"));
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  accept(*game, 1, Json{{"action", "declare"}, {"direction", "uptown"}});
  accept(*game, 1, discard("3C 7C JC 2D 6D TD"));
  accept(*game, 1, play("BJ"));
  // Seat 2 may play anything; its heart then sets hearts for seats 3 and 0.
  EXPECT_EQ(game->legal_moves(2).size(), 12u);
  EXPECT_EQ(game->view(0)["led_suit"], nullptr);
  accept(*game, 2, play("6H"));
  EXPECT_EQ(cards_mentioned(game->legal_moves(3)), cards("3H 7H JH"));
  accept(*game, 3, play("3H"));
  accept(*game, 0, play("8H"));
  EXPECT_EQ(game->view(kSpectator)["last_trick"]["winner"], 0);  // the joker never wins
  EXPECT_EQ(game->to_act(), std::vector<Seat>{0});
}

TEST(BidWhist, MakingSevenWinsTheGame) {
  auto game = suited_deal();
  accept(*game, 0, bid(7, "uptown"));
  for (int s = 1; s < 4; ++s) accept(*game, s, kPass);
  accept(*game, 0, Json{{"action", "declare"}, {"trump", "S"}});
  accept(*game, 0, discard("2H 2D 2C 3S 4S 5S"));
  play_out(*game);
  EXPECT_EQ(game->team_books(0), 13);
  EXPECT_TRUE(game->finished());
  EXPECT_EQ(game->to_act(), std::vector<Seat>{});
  EXPECT_EQ(game->result()["winners"], Json({0, 2}));
  EXPECT_EQ(game->result()["scores"], Json({7, 0, 7, 0}));
  expect_rejected(*game, 0, kPass, "game_over");
  EXPECT_EQ(game->view(1)["phase"], "finished");
  EXPECT_EQ(game->view(1)["turn"], nullptr);
}

TEST(BidWhist, NoTrumpDoublesAndTheNextDealerDeals) {
  auto game = suited_deal(/*target=*/21);
  accept(*game, 0, kPass);
  accept(*game, 1, bid(7, "no_trump"));
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  accept(*game, 1, Json{{"action", "declare"}, {"direction", "uptown"}});
  accept(*game, 1, discard("2S 2D 2C LJ BJ 3H"));
  play_out(*game);
  EXPECT_EQ(game->team_books(1), 13);
  EXPECT_EQ(game->team_score(1), 14);
  EXPECT_EQ(game->phase(), Phase::kHandOver);
  // The hand stays on view until the next dealer (left of the last one) deals.
  const Json view = game->view(kSpectator);
  EXPECT_EQ(view["scores"], Json({0, 14}));
  EXPECT_EQ(view["last_hand"]["points"], Json({0, 14}));
  EXPECT_EQ(view["last_hand"]["made"], true);
  EXPECT_FALSE(view["last_trick"].is_null());
  EXPECT_EQ(game->to_act(), std::vector<Seat>{0});
  EXPECT_EQ(game->legal_moves(0), Json::array({Json{{"action", "deal"}}}));
  expect_rejected(*game, 1, Json{{"action", "deal"}}, "not_your_turn");
  expect_rejected(*game, 0, kPass, "wrong_phase");
  accept(*game, 0, Json{{"action", "deal"}});
  EXPECT_EQ(game->phase(), Phase::kBidding);
  EXPECT_EQ(game->dealer(), 0);
  EXPECT_EQ(game->to_act(), std::vector<Seat>{1});
  EXPECT_EQ(game->view(2)["hand_number"], 2);
  EXPECT_EQ(game->view(2)["last_trick"], nullptr);
  EXPECT_EQ(game->view(2)["books"], Json({0, 0}));
  for (int s = 0; s < kSeats; ++s) EXPECT_EQ(game->hand(s).size(), 12);
}

TEST(BidWhist, SetContractLosesAtMinusTarget) {
  auto game = suited_deal();
  accept(*game, 0, kPass);
  accept(*game, 1, bid(7, "uptown"));
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  accept(*game, 1, Json{{"action", "declare"}, {"trump", "S"}});  // seat 0 holds every spade
  accept(*game, 1, discard("2S 2D 2C LJ BJ 3H"));
  play_out(*game);
  EXPECT_EQ(game->team_books(1), 1);  // only the discard
  EXPECT_EQ(game->team_score(1), -7);
  EXPECT_TRUE(game->finished());
  EXPECT_EQ(game->result()["winners"], Json({0, 2}));
  EXPECT_EQ(game->result()["team_scores"], Json({0, -7}));
}

TEST(BidWhist, RegistryOptions) {
  const GameInfo info = bidwhist_info();
  EXPECT_EQ(info.kind, "bidwhist");
  EXPECT_EQ(info.name, "Bid Whist");
  std::string error;
  EXPECT_FALSE(normalize_options(info.options, {{"auction", "forever"}}, error));
  EXPECT_FALSE(normalize_options(info.options, {{"target", 0}}, error));
  const auto options = normalize_options(info.options, {{"auction", "until_passed"}}, error);
  ASSERT_TRUE(options);
  EXPECT_EQ((*options)["target"], 7);
}

}  // namespace
}  // namespace parlor::bidwhist
