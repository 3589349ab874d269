// Big Two rules scenarios on stacked decks: the opening lead, rejections and their codes,
// the pass / clear cycle, end of deal and scoring, several deals, views, legal moves and
// the variants. Rules: https://www.pagat.com/climbing/bigtwo.html and docs/RULES.md.
#include "games/bigtwo/bigtwo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include "games/core/rng.h"
#include "games/testing/card_text.h"
#include "games/testing/self_play.h"

namespace parlor::bigtwo {
namespace {

using parlor::testing::cards;

Json options(const Json& given = Json::object()) {
  std::string error;
  auto out = normalize_options(bigtwo_info().options, given, error);
  EXPECT_TRUE(out) << error;
  return out ? *out : Json();
}

std::unique_ptr<BigTwoGame> stacked(const std::vector<std::string>& hands,
                                    const Json& given = Json::object()) {
  std::vector<CardSet> sets;
  for (const auto& h : hands) sets.push_back(cards(h));
  return BigTwoGame::with_hands(options(given), sets);
}

Json play(const std::string& text) {
  Json list = Json::array();
  std::istringstream in(text);
  std::string word;
  while (in >> word) list.push_back(word);
  return {{"action", "play"}, {"cards", list}};
}

const Json kPass = {{"action", "pass"}};

// Applies a move that must be accepted; returns its events.
Json accept(Game& game, Seat seat, const Json& move) {
  auto result = game.apply(seat, move);
  EXPECT_TRUE(result.ok()) << "seat " << seat << " " << move.dump() << ": " << result.code() << " "
                           << result.message();
  return result.events();
}

// Applies a move that must be rejected with `code` and leave the state as it was.
std::string reject(Game& game, Seat seat, const Json& move, const std::string& code) {
  const std::uint64_t before = game.state_hash();
  auto result = game.apply(seat, move);
  EXPECT_FALSE(result.ok()) << "seat " << seat << " " << move.dump() << " was accepted";
  EXPECT_EQ(result.code(), code) << move.dump() << ": " << result.message();
  EXPECT_FALSE(result.message().empty());
  EXPECT_EQ(game.state_hash(), before) << "rejected " << move.dump() << " changed the state";
  return result.message();
}

TEST(BigTwo, InfoListsOptionsWithReferenceDefaults) {
  const GameInfo info = bigtwo_info();
  EXPECT_EQ(info.kind, "bigtwo");
  EXPECT_EQ(info.name, "Big Two");
  EXPECT_EQ(info.min_seats, 2);
  EXPECT_EQ(info.max_seats, 4);
  const Json schema = options_schema_json(info.options);
  EXPECT_EQ(schema["deals"]["default"], 1);
  EXPECT_EQ(schema["deals"]["min"], 1);
  EXPECT_EQ(schema["deals"]["max"], 20);
  EXPECT_EQ(schema["suit_order"]["default"], "spades_hearts_clubs_diamonds");
  EXPECT_EQ(schema["suit_order"]["choices"][1]["value"], "spades_hearts_diamonds_clubs");
  EXPECT_EQ(schema["straights"]["default"], "standard");
  EXPECT_EQ(schema["straights"]["choices"][1]["value"], "no_twos");
  std::string error;
  EXPECT_FALSE(normalize_options(info.options, {{"deals", 21}}, error));
  EXPECT_FALSE(normalize_options(info.options, {{"straights", "wrap"}}, error));
}

TEST(BigTwo, DealsThirteenEachAndTheLowestDealtCardLeads) {
  for (const std::string order : {"spades_hearts_clubs_diamonds", "spades_hearts_diamonds_clubs"}) {
    const SuitOrder suit_order = order == "spades_hearts_clubs_diamonds"
                                     ? SuitOrder::kSpadesHeartsClubsDiamonds
                                     : SuitOrder::kSpadesHeartsDiamondsClubs;
    for (int seats = 2; seats <= 4; ++seats) {
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        BigTwoGame game(options({{"suit_order", order}}), seats, seed);
        CardSet dealt;
        for (Seat s = 0; s < seats; ++s) {
          EXPECT_EQ(game.hand(s).size(), 13);
          dealt.add_all(game.hand(s));
        }
        EXPECT_EQ(dealt.size(), 13 * seats);
        EXPECT_EQ(game.full_state()["undealt"].size(), static_cast<std::size_t>(52 - 13 * seats));
        const Card lowest = lowest_card(dealt, suit_order);
        EXPECT_TRUE(game.hand(game.turn()).contains(lowest));
        EXPECT_EQ(game.required(), CardSet{lowest});
        if (seats == 4) {
          EXPECT_EQ(lowest.to_string(),
                    suit_order == SuitOrder::kSpadesHeartsClubsDiamonds ? "3D" : "3C");
        }
      }
    }
  }
}

TEST(BigTwo, SameSeedSameDeal) {
  BigTwoGame a(options(), 3, 42), b(options(), 3, 42), c(options(), 3, 43);
  EXPECT_EQ(a.full_state(), b.full_state());
  EXPECT_NE(a.full_state()["hands"], c.full_state()["hands"]);
}

TEST(BigTwo, OpeningLeadMustIncludeTheLowestCard) {
  auto game = stacked({"4D 5D 6D 7D 8D 9C", "3D 3S KH", "3C 3H QS", "JS QH"});
  ASSERT_EQ(game->turn(), 1);
  reject(*game, 1, kPass, "cannot_pass");
  const std::string message = reject(*game, 1, play("KH"), "must_include_lowest");
  EXPECT_NE(message.find("3D"), std::string::npos) << message;
  reject(*game, 1, play("3S"), "must_include_lowest");
  reject(*game, 0, play("4D"), "not_your_turn");
  const Json events = accept(*game, 1, play("3S 3D"));
  EXPECT_EQ(events, Json::parse(R"([{"type":"play","seat":1,"cards":["3D","3S"],
                                     "combination":"pair"}])"));
  EXPECT_TRUE(game->required().empty());
}

TEST(BigTwo, WithThreePlayersTheLowestDealtCardMayBeAnyCard) {
  auto game = stacked({"9D TD", "5H 6H", "4S 2S"});
  EXPECT_EQ(game->turn(), 2);
  reject(*game, 2, play("2S"), "must_include_lowest");
  accept(*game, 2, play("4S"));
}

TEST(BigTwo, VariantSuitOrderPutsTheThreeOfClubsFirst) {
  auto game =
      stacked({"3D 9D", "3C 9C", "4H", "5H"}, {{"suit_order", "spades_hearts_diamonds_clubs"}});
  EXPECT_EQ(game->turn(), 1);
  accept(*game, 1, play("3C"));
  accept(*game, 2, play("4H"));
  EXPECT_EQ(game->view(0)["hand"], Json::parse(R"(["3D","9D"])"));
  auto reference = stacked({"3D 3C 9D", "9C", "4H", "5H"});
  EXPECT_EQ(reference->view(0)["hand"], Json::parse(R"(["3D","3C","9D"])"));
}

TEST(BigTwo, RejectionCodes) {
  auto game = stacked({"4D 5D 6D 7D 8D 9C", "3D 3S KH", "3C 3H QS AS", "JS QH"});
  accept(*game, 1, play("3D 3S"));
  reject(*game, 1, play("KH"), "not_your_turn");
  reject(*game, 2, play("4D 4C"), "card_not_held");
  const std::string missing = reject(*game, 2, play("3C 9H"), "card_not_held");
  EXPECT_NE(missing.find("9H"), std::string::npos) << missing;
  reject(*game, 2, play("QS"), "wrong_combination");           // one card on a pair
  reject(*game, 2, play("3C QS"), "wrong_combination");        // not a pair
  reject(*game, 2, play("3C 3H QS AS"), "wrong_combination");  // four cards: no combination
  reject(*game, 2, play("3C 3H"), "does_not_beat");            // the 3S outranks the 3H
  reject(*game, 2, Json{{"action", "play"}, {"cards", Json::array()}}, "wrong_combination");
  accept(*game, 2, kPass);
  reject(*game, 3, play("JS QH"), "wrong_combination");
  accept(*game, 3, kPass);
  reject(*game, 0, play("4D 5D 6D 7D 9C"), "wrong_combination");
  accept(*game, 0, kPass);
  // Everyone else passed: seat 1 leads a fresh round and may not pass.
  reject(*game, 1, kPass, "cannot_pass");
}

TEST(BigTwo, MalformedMovesAreRefusedWithoutChange) {
  auto game = stacked({"4D 5D", "3D 3S KH", "3C", "JS"});
  const Json junk[] = {
      Json(nullptr),
      Json("pass"),
      Json::array({"play"}),
      Json{{"action", 7}},
      Json{{"action", "fold"}},
      Json{{"action", "play"}},
      Json{{"action", "play"}, {"cards", "3D"}},
      Json{{"action", "play"}, {"cards", Json::array({3})}},
      Json{{"action", "play"}, {"cards", Json::array({"ZZ"})}},
      Json{{"action", "play"}, {"cards", Json::array({"3D", "3D"})}},
  };
  for (const Json& move : junk) reject(*game, 1, move, "illegal_move");
  const std::string message = reject(
      *game, 1, Json{{"action", "play"}, {"cards", Json(std::vector<std::string>(1000, "3D"))}},
      "wrong_combination");
  EXPECT_LT(message.size(), 200U);
  reject(*game, 1, play("3D 3S KH 4D 5D 6D"), "wrong_combination");
  // Broken UTF-8 and long strings are not echoed in a way that breaks the reply.
  const std::string broken =
      "a\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3";
  for (const Json& move :
       {Json{{"action", broken}}, Json{{"action", "play"}, {"cards", Json::array({broken})}}}) {
    auto result = game->apply(1, move);
    EXPECT_EQ(result.code(), "illegal_move");
    EXPECT_NO_THROW(Json(result.message()).dump()) << result.message();
    EXPECT_LT(result.message().size(), 200U);
  }
  reject(*game, 1, play("BJ"), "card_not_held");
  reject(*game, 7, play("3D"), "not_your_turn");
  reject(*game, kSpectator, play("3D"), "not_your_turn");
}

TEST(BigTwo, PassingDoesNotLockAPlayerOut) {
  auto game = stacked({"AD AC", "3D 6S", "5C 9H", "4D 7H 8C"});
  accept(*game, 1, play("3D"));
  accept(*game, 2, kPass);
  accept(*game, 3, play("4D"));
  EXPECT_EQ(game->view(kSpectator)["passed"], Json::array());
  accept(*game, 0, kPass);
  EXPECT_EQ(game->view(kSpectator)["passed"], Json::array({0}));
  accept(*game, 1, kPass);
  accept(*game, 2, play("5C"));  // seat 2 passed before and plays now
  EXPECT_EQ(game->view(2)["table"],
            Json::parse(R"({"seat":2,"cards":["5C"],"combination":"single"})"));
  accept(*game, 3, play("7H"));
  accept(*game, 0, play("AD"));
  accept(*game, 1, kPass);
  accept(*game, 2, kPass);
  const Json events = accept(*game, 3, kPass);
  EXPECT_EQ(events, Json::parse(R"([{"type":"pass","seat":3},{"type":"clear","leader":0}])"));
  EXPECT_EQ(game->turn(), 0);
  EXPECT_EQ(game->table(), nullptr);
  EXPECT_EQ(game->view(1)["table"], nullptr);
  EXPECT_EQ(game->view(1)["leader"], 0);
}

TEST(BigTwo, TheLastPlayerLeadsAnyCombinationAfterAClear) {
  auto game = stacked({"3D 4S 4H 9C", "5C 6C JD", "8C QD", "TC KD"});
  accept(*game, 0, play("3D"));
  accept(*game, 1, kPass);
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  EXPECT_EQ(game->turn(), 0);
  accept(*game, 0, play("4S 4H"));  // a pair after a single: the table is fresh
  reject(*game, 1, play("5C 6C"), "wrong_combination");
  accept(*game, 1, kPass);
  accept(*game, 2, kPass);
  accept(*game, 3, kPass);
  EXPECT_EQ(game->legal_moves(0), Json::parse(R"([{"action":"play","cards":["9C"]}])"));
}

TEST(BigTwo, TwoPlayersClearAfterOnePass) {
  auto game = stacked({"3D 9S KD", "4C 5C 6C"});
  accept(*game, 0, play("3D"));
  const Json events = accept(*game, 1, kPass);
  EXPECT_EQ(events.back(), Json::parse(R"({"type":"clear","leader":0})"));
  accept(*game, 0, play("9S"));
  reject(*game, 1, play("4C"), "does_not_beat");
  accept(*game, 1, kPass);
  EXPECT_EQ(game->turn(), 0);
  EXPECT_EQ(game->table(), nullptr);
}

TEST(BigTwo, PenaltyTable) {
  const int expected[14] = {0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -20, -22, -24, -39};
  for (int left = 0; left <= 13; ++left) EXPECT_EQ(penalty(left), expected[left]) << left;
}

TEST(BigTwo, EndOfDealScoresEveryoneAndEndsTheGame) {
  auto game = stacked({"3D", "4C 5C 6C 7C 8C 9C TC JC QC KC AC 2C 4D",
                       "4H 5H 6H 7H 8H 9H TH JH QH KH", "4S 5S 6S 7S 8S 9S TS JS QS"});
  const Json events = accept(*game, 0, play("3D"));
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[1], Json::parse(R"({"type":"deal_over","deal":1,"winner":0,
                                       "scores":[68,-39,-20,-9],"cards_left":[0,13,10,9],
                                       "totals":[68,-39,-20,-9],"hands":[[],
      ["4D","4C","5C","6C","7C","8C","9C","TC","JC","QC","KC","AC","2C"],
      ["4H","5H","6H","7H","8H","9H","TH","JH","QH","KH"],
      ["4S","5S","6S","7S","8S","9S","TS","JS","QS"]]})"));
  // The counted hands stay on the finished table, for players and spectators, and in the result.
  for (Seat viewer = kSpectator; viewer < 4; ++viewer) {
    EXPECT_EQ(game->view(viewer)["last_deal"]["hands"], events[1]["hands"]) << viewer;
  }
  EXPECT_EQ(game->result()["deals"][0]["hands"], events[1]["hands"]);
  EXPECT_TRUE(game->finished());
  EXPECT_TRUE(game->to_act().empty());
  EXPECT_EQ(game->result()["scores"], Json::parse("[68,-39,-20,-9]"));
  EXPECT_EQ(game->result()["winners"], Json::array({0}));
  EXPECT_EQ(game->view(1)["phase"], "finished");
  EXPECT_EQ(game->view(1)["turn"], nullptr);
  EXPECT_EQ(game->view(1)["last_deal"]["winner"], 0);
  EXPECT_EQ(game->legal_moves(1), Json::array());
  EXPECT_TRUE(game->prompt(0).is_null());
  reject(*game, 1, kPass, "game_over");
}

// Plays the first legal move until the game ends.
void play_out(BigTwoGame& game) {
  for (int step = 0; step < 10000 && !game.finished(); ++step) {
    const Seat seat = game.turn();
    ASSERT_TRUE(game.apply(seat, game.legal_moves(seat)[0]).ok());
  }
  ASSERT_TRUE(game.finished());
}

TEST(BigTwo, SeveralDealsTheWinnerLeadsTheNextWithAnything) {
  auto game = stacked({"9C", "3D 4D", "6H 7H", "7S 8S"}, {{"deals", 3}});
  accept(*game, 1, play("3D"));
  accept(*game, 2, play("6H"));
  accept(*game, 3, play("7S"));
  const Json events = accept(*game, 0, play("9C"));
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[1]["type"], "deal_over");
  EXPECT_EQ(events[1]["scores"], Json::parse("[3,-1,-1,-1]"));
  EXPECT_EQ(events[2], Json::parse(R"({"type":"deal","deal":2,"leader":0})"));
  // The losers' last cards are counted face up; the next deal's view is about its own cards.
  EXPECT_EQ(events[1]["hands"], Json::parse(R"([[],["4D"],["7H"],["8S"]])"));
  EXPECT_FALSE(game->view(2)["last_deal"].contains("hands"));
  EXPECT_FALSE(game->finished());
  EXPECT_EQ(game->deal(), 2);
  EXPECT_EQ(game->turn(), 0);
  EXPECT_TRUE(game->required().empty());
  for (Seat s = 0; s < 4; ++s) EXPECT_EQ(game->hand(s).size(), 13);
  EXPECT_EQ(game->view(2)["scores"], Json::parse("[3,-1,-1,-1]"));
  EXPECT_EQ(game->view(2)["last_deal"]["winner"], 0);
  reject(*game, 0, kPass, "cannot_pass");
  // Any card may lead, the highest included.
  const Json hand = game->view(0)["hand"];
  EXPECT_TRUE(game->clone()->apply(0, play(hand.back().get<std::string>())).ok());
  EXPECT_EQ(game->view(0)["opening"], false);
  EXPECT_FALSE(game->view(0).contains("must_include"));
  play_out(*game);
  ASSERT_EQ(game->deal_results().size(), 3U);
  const Json result = game->result();
  int sum = 0;
  int best = -1000;
  for (const Json& score : result["scores"]) {
    sum += score.get<int>();
    best = std::max(best, score.get<int>());
  }
  EXPECT_EQ(sum, 0);
  for (const Json& winner : result["winners"]) EXPECT_EQ(result["scores"][winner.get<int>()], best);
  EXPECT_EQ(result["deals"].size(), 3U);
}

TEST(BigTwo, TiedTotalsShareTheWin) {
  auto game = stacked({"3D", "4D 5D"}, {{"deals", 2}});
  accept(*game, 0, play("3D"));
  ASSERT_EQ(game->deal(), 2);
  game->restack_for_test({cards("4C 9C 5C"), cards("AS")});
  accept(*game, 0, play("4C"));
  accept(*game, 1, play("AS"));
  ASSERT_TRUE(game->finished());
  EXPECT_EQ(game->result()["scores"], Json::parse("[0,0]"));
  EXPECT_EQ(game->result()["winners"], Json::parse("[0,1]"));
}

TEST(BigTwo, ViewsShowOwnHandSortedAndOnlyCountsOfOthers) {
  auto game = stacked({"2S AH 3S 4D 3C", "3D KH", "9C 9H QS", "JS"});
  const Json own = game->view(0);
  EXPECT_EQ(own["you"], 0);
  EXPECT_EQ(own["hand"], Json::parse(R"(["3C","3S","4D","AH","2S"])"));
  EXPECT_EQ(own["hand_counts"], Json::parse("[5,2,3,1]"));
  EXPECT_EQ(own["phase"], "play");
  EXPECT_EQ(own["turn"], 1);
  EXPECT_EQ(own["opening"], true);
  EXPECT_FALSE(own.contains("must_include"));  // only its holder learns the opening card
  EXPECT_EQ(game->view(1)["must_include"], "3D");
  EXPECT_EQ(own["deal"], 1);
  EXPECT_EQ(own["deals"], 1);
  EXPECT_EQ(own["scores"], Json::parse("[0,0,0,0]"));
  EXPECT_EQ(own["last_deal"], nullptr);
  EXPECT_EQ(own["table"], nullptr);
  EXPECT_EQ(own["suit_order"], "spades_hearts_clubs_diamonds");
  EXPECT_EQ(own["straights"], "standard");
  const Json spectator = game->view(kSpectator);
  EXPECT_EQ(spectator["you"], nullptr);
  EXPECT_FALSE(spectator.contains("hand"));
  EXPECT_FALSE(spectator.contains("must_include"));
  EXPECT_EQ(testing::cards_mentioned(spectator), CardSet());
  for (Seat s = 0; s < 4; ++s) EXPECT_EQ(testing::cards_mentioned(game->view(s)), game->hand(s));
  accept(*game, 1, play("3D"));
  EXPECT_EQ(game->view(kSpectator)["table"],
            Json::parse(R"({"seat":1,"cards":["3D"],"combination":"single"})"));
  EXPECT_EQ(game->view(kSpectator)["leader"], 1);
}

TEST(BigTwo, LegalMovesAndPrompt) {
  auto game = stacked({"4D 5D 6D 7D 8D 9C", "3D 3S KH", "3C 3H QS AS", "JS QH"});
  const Json opening = game->legal_moves(1);
  EXPECT_EQ(opening, Json::parse(R"([{"action":"play","cards":["3D"]},
                                     {"action":"play","cards":["3D","3S"]}])"));
  EXPECT_EQ(game->prompt(1), Json({{"actions", {"play"}}, {"legal", opening}}));
  EXPECT_EQ(game->legal_moves(0), Json::array());
  EXPECT_TRUE(game->prompt(0).is_null());
  accept(*game, 1, play("3D"));
  const Json follow = game->legal_moves(2);
  EXPECT_EQ(follow, Json::parse(R"([{"action":"play","cards":["3C"]},
                                    {"action":"play","cards":["3H"]},
                                    {"action":"play","cards":["QS"]},
                                    {"action":"play","cards":["AS"]},
                                    {"action":"pass"}])"));
  EXPECT_EQ(game->prompt(2)["actions"], Json::parse(R"(["play","pass"])"));
  EXPECT_EQ(game->prompt(2)["legal"], follow);
}

TEST(BigTwo, FiveCardPlaysInAGame) {
  auto game =
      stacked({"3D 4C 5H 6S 7D 9H", "3S 4S 5S 6S 7S KC", "8C 8D 8H 2C 2D", "TC TD TH TS 4D"});
  const Json events = accept(*game, 0, play("7D 6S 5H 4C 3D"));  // any order of cards
  EXPECT_EQ(events, Json::parse(R"([{"type":"play","seat":0,"combination":"straight",
                                      "cards":["3D","4C","5H","6S","7D"]}])"));
  accept(*game, 1, play("3S 4S 5S 6S 7S"));
  reject(*game, 2, play("8C 8D 8H 2C 2D"), "does_not_beat");  // a full house under a straight flush
  accept(*game, 2, kPass);
  reject(*game, 3, play("TC TD TH TS 4D"), "does_not_beat");
}

TEST(BigTwo, StraightsVariantWithoutTwos) {
  const std::vector<std::string> hands = {"2D 3C 4H 5S 6D 8H", "JD QC KH AS 2C", "9S"};
  auto standard = stacked(hands);
  accept(*standard, 0, play("2D 3C 4H 5S 6D"));
  accept(*standard, 1, play("JD QC KH AS 2C"));
  auto no_twos = stacked(hands, {{"straights", "no_twos"}});
  reject(*no_twos, 0, play("2D 3C 4H 5S 6D"), "wrong_combination");
  EXPECT_EQ(no_twos->legal_moves(0).size(), 1U);  // only the 3C alone
}

// The typed state hash distinguishes exactly what full_state() distinguishes.
TEST(BigTwo, StateHashTracksFullState) {
  std::map<std::string, std::uint64_t> hash_of;
  std::map<std::uint64_t, std::string> state_of;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    BigTwoGame game(options({{"deals", 2}}), 2 + static_cast<int>(seed % 3), seed);
    Rng rng(seed);
    while (!game.finished()) {
      const std::string state = game.full_state().dump();
      const std::uint64_t hash = game.state_hash();
      EXPECT_EQ(hash_of.emplace(state, hash).first->second, hash);
      EXPECT_EQ(state_of.emplace(hash, state).first->second, state);
      EXPECT_EQ(game.clone()->state_hash(), hash);
      const Json legal = game.legal_moves(game.turn());
      ASSERT_TRUE(game.apply(game.turn(), legal[rng.uniform(legal.size())]).ok());
    }
  }
}

// Rejection messages name only cards the mover can see: their own hand, what was played
// and the cards of their own move.
TEST(BigTwo, RejectionsNeverMentionHiddenCards) {
  const Json opts = options();
  for (int seats = 2; seats <= 4; ++seats) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      BigTwoGame game(opts, seats, seed);
      Rng rng(seed);
      CardSet played;
      for (int step = 0; step < 400 && !game.finished(); ++step) {
        const Seat seat = game.turn();
        for (int k = 0; k < 6; ++k) {
          Json list = Json::array();
          const auto count = 1 + rng.uniform(5);
          for (std::uint64_t i = 0; i < count; ++i) {
            list.push_back(Card::from_index(static_cast<int>(rng.uniform(52))).to_string());
          }
          const Json move = {{"action", "play"}, {"cards", list}};
          auto r = game.clone()->apply(seat, move);
          if (r.ok()) continue;
          const CardSet visible = game.hand(seat) | played | testing::cards_mentioned(move);
          std::istringstream words(r.message());
          std::string word;
          while (words >> word) {
            word.erase(std::remove_if(word.begin(), word.end(),
                                      [](char c) { return c == '(' || c == ')' || c == ','; }),
                       word.end());
            if (auto card = parse_card(word)) {
              EXPECT_TRUE(visible.contains(*card)) << r.message();
            }
          }
        }
        const Json legal = game.legal_moves(seat);
        const Json move = legal[rng.uniform(legal.size())];
        if (move.contains("cards")) played.add_all(testing::cards_mentioned(move));
        ASSERT_TRUE(game.apply(seat, move).ok());
        if (game.deal() > 1) break;
      }
    }
  }
}

}  // namespace
}  // namespace parlor::bigtwo
