// Table tests for Splendor's turn structure: nobles, the final round and tie-break, passing,
// phase and turn rejections, views and prompts.
#include <gtest/gtest.h>

#include "games/splendor/splendor_test_util.h"

namespace parlor::splendor {
namespace {

using namespace testing;  // NOLINT: the test helpers

// Level-1, 0-point cards of each colour (colour order white, blue, green, red, black).
const std::vector<std::vector<int>> kPlainCards = {{1, 2, 3, 4, 5, 6, 7},
                                                   {9, 10, 11, 12, 13, 14, 15},
                                                   {17, 18, 19, 20, 21, 22, 23},
                                                   {25, 26, 27, 28, 29, 30, 31},
                                                   {33, 34, 35, 36, 37, 38, 39}};

// Gives `seat` `count` bonuses of `color` by buying plain level-1 cards for it.
void give_bonuses(State& state, int seat, int color, int count) {
  const auto& plain = kPlainCards[static_cast<std::size_t>(color)];
  int given = 0;
  for (int card : plain) {
    if (given == count) break;
    const auto& bought = state.player(seat).bought;
    if (std::find(bought.begin(), bought.end(), card) != bought.end()) continue;
    put_bought(state, seat, card);
    ++given;
  }
}

// A state where seat 0 buys red card 28 (white 1, blue 1, green 1, black 1) next, with
// bonuses green 4, black 4, red 3 and the tokens to pay.
State before_red_purchase(std::vector<int> nobles) {
  State state = dealt(3);
  give_bonuses(state, 0, 2, 4);
  give_bonuses(state, 0, 4, 4);
  give_bonuses(state, 0, 3, 3);
  put_face_up(state, 28, 0);
  give_tokens(state, 0, tokens(1, 1, 0, 0, 0, 0));
  state.nobles = std::move(nobles);
  return state;
}

// ---- nobles ----

TEST(SplendorNobles, ExactlyOneQualifyingNobleVisitsAutomatically) {
  // Noble 4 wants green 4 + red 4; noble 1 white 4 + blue 4; noble 2 white 4 + black 4.
  SplendorGame game(before_red_purchase({4, 1, 2}));
  const auto result = game.apply(0, buy(28));
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.events().back(), Json({{"type", "noble"}, {"seat", 0}, {"noble", 4}}));
  EXPECT_EQ(game.state().player(0).nobles, std::vector<int>{4});
  EXPECT_EQ(game.state().player(0).points, 3);
  EXPECT_EQ(game.state().nobles, (std::vector<int>{1, 2}));
  EXPECT_EQ(game.state().current, 1);
  EXPECT_EQ(game.view(2)["players"][0]["nobles"], Json::array({4}));
}

TEST(SplendorNobles, TwoQualifyingNoblesAskTheSameSeatToChoose) {
  // Noble 5 wants red 4 + black 4: with noble 4, both qualify after the red purchase.
  SplendorGame game(before_red_purchase({4, 1, 5}));
  const auto bought = game.apply(0, buy(28));
  ASSERT_TRUE(bought.ok());
  EXPECT_EQ(bought.events()[0]["type"], "buy");
  for (const Json& event : bought.events()) EXPECT_NE(event["type"], "noble");
  EXPECT_EQ(game.state().phase, Phase::kNoble);
  EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
  EXPECT_EQ(game.prompt(0),
            Json({{"actions", {"noble"}},
                  {"legal",
                   {{{"action", "noble"}, {"noble", 4}}, {{"action", "noble"}, {"noble", 5}}}}}));
  EXPECT_EQ(game.view(1)["noble_choices"], Json::array({4, 5}));
  expect_rejected(game, 0, take({"white", "blue", "red"}), "must_choose_noble");
  expect_rejected(game, 0, give_back({{"white", 1}}), "must_choose_noble");
  expect_rejected(game, 0, choose_noble(1), "noble_not_eligible");  // on the table, not met
  expect_rejected(game, 0, choose_noble(7), "noble_not_eligible");  // not on the table
  expect_rejected(game, 0, choose_noble(11), "unknown_noble");
  expect_rejected(game, 0, {{"action", "noble"}, {"noble", "5"}}, "unknown_noble");
  expect_rejected(game, 0, {{"action", "noble"}}, "bad_move");
  expect_rejected(game, 1, choose_noble(5), "not_your_turn");
  const auto chosen = game.apply(0, choose_noble(5));
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.events()[0], Json({{"type", "noble"}, {"seat", 0}, {"noble", 5}}));
  EXPECT_EQ(game.state().player(0).points, 3);
  EXPECT_EQ(game.state().current, 1);
  // One noble a turn: the other still qualifies and visits at the end of seat 0's next turn.
  ASSERT_TRUE(game.apply(1, take({"white", "blue", "green"})).ok());
  ASSERT_TRUE(game.apply(2, take({"white", "blue", "green"})).ok());
  const auto next = game.apply(0, take({"red", "blue", "green"}));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next.events().back(), Json({{"type", "noble"}, {"seat", 0}, {"noble", 4}}));
  EXPECT_EQ(game.state().player(0).points, 6);
}

TEST(SplendorNobles, TokensAreReturnedBeforeTheNobleVisits) {
  State state = dealt(2);
  give_bonuses(state, 0, 2, 4);
  give_bonuses(state, 0, 3, 4);  // already qualifies for noble 4 (left over from a tie)
  give_tokens(state, 0, tokens(2, 2, 2, 2, 0, 0));
  state.nobles = {4, 1, 2};
  SplendorGame game(state);
  const auto took = game.apply(0, take({"white", "blue", "black"}));
  ASSERT_TRUE(took.ok());
  EXPECT_EQ(game.state().phase, Phase::kReturn);
  EXPECT_TRUE(game.state().player(0).nobles.empty());
  const auto returned = game.apply(0, give_back({{"black", 1}}));
  ASSERT_TRUE(returned.ok());
  EXPECT_EQ(returned.events().back(), Json({{"type", "noble"}, {"seat", 0}, {"noble", 4}}));
  EXPECT_EQ(game.state().current, 1);
}

// ---- the end ----

// Seat `seat` holds 14 points (three level-3 cards) and can buy card 8 (1 point, green 4).
State fourteen_points(int seats, int seat) {
  State state = dealt(seats);
  for (int card : {78, 90, 72}) put_bought(state, seat, card);
  put_face_up(state, 8, 0);
  give_tokens(state, seat, tokens(0, 0, 4, 0, 0, 0));
  state.current = seat;
  return state;
}

TEST(SplendorEnd, TheRoundIsFinishedAfterSomeoneReachesFifteen) {
  SplendorGame game(fourteen_points(3, 0));
  const auto reached = game.apply(0, buy(8));
  ASSERT_TRUE(reached.ok());
  EXPECT_EQ(reached.events().back(), Json({{"type", "final_round"}, {"seat", 0}}));
  EXPECT_FALSE(game.finished());
  EXPECT_TRUE(game.view(kSpectator)["final_round"].get<bool>());
  EXPECT_TRUE(game.result().is_null());
  ASSERT_TRUE(game.apply(1, take({"white", "blue", "green"})).ok());
  EXPECT_FALSE(game.finished());
  const auto last = game.apply(2, take({"white", "blue", "red"}));
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(game.finished());
  EXPECT_TRUE(game.to_act().empty());
  EXPECT_EQ(last.events().back()["type"], "game_over");
  EXPECT_EQ(game.result(), Json({{"scores", {15, 0, 0}},
                                 {"winners", {0}},
                                 {"cards_bought", {4, 0, 0}},
                                 {"nobles", {0, 0, 0}},
                                 {"ended_by", "points"}}));
  EXPECT_EQ(game.view(1)["phase"], "finished");
  EXPECT_TRUE(game.view(1)["turn"].is_null());
  EXPECT_EQ(game.view(1)["result"], game.result());
  EXPECT_TRUE(game.prompt(0).is_null());
  EXPECT_TRUE(game.legal_moves(0).empty());
  expect_rejected(game, 0, take({"white", "blue", "green"}), "game_over");
}

TEST(SplendorEnd, TheLastSeatReachingFifteenEndsTheGameAtOnce) {
  SplendorGame game(fourteen_points(2, 1));
  ASSERT_TRUE(game.apply(1, buy(8)).ok());
  EXPECT_TRUE(game.finished());
  EXPECT_EQ(game.result()["winners"], Json::array({1}));
}

TEST(SplendorEnd, TieBrokenByFewestCardsBought) {
  State state = fourteen_points(3, 0);                       // seat 0 will have 15 with 4 cards
  for (int card : {74, 82, 86}) put_bought(state, 1, card);  // seat 1: 15 with 3 cards
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, buy(8)).ok());
  ASSERT_TRUE(game.apply(1, take({"white", "blue", "green"})).ok());
  ASSERT_TRUE(game.apply(2, take({"white", "blue", "green"})).ok());
  ASSERT_TRUE(game.finished());
  EXPECT_EQ(game.result()["scores"], Json::array({15, 15, 0}));
  EXPECT_EQ(game.result()["cards_bought"], Json::array({4, 3, 0}));
  EXPECT_EQ(game.result()["winners"], Json::array({1}));
}

TEST(SplendorEnd, AFullTieSharesTheWin) {
  State state = fourteen_points(2, 0);
  for (int card : {74, 82, 84}) put_bought(state, 1, card);  // 5 + 5 + 4 = 14 with 3 cards
  put_bought(state, 1, 16);                                  // + 1 = 15 with 4 cards
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, buy(8)).ok());
  ASSERT_TRUE(game.apply(1, take({"white", "blue", "green"})).ok());
  ASSERT_TRUE(game.finished());
  EXPECT_EQ(game.result()["winners"], Json::array({0, 1}));
}

TEST(SplendorEnd, MostPrestigeWinsWhateverTheCardCount) {
  State state = fourteen_points(2, 0);
  for (int card : {74, 82, 86, 16}) put_bought(state, 1, card);  // 16 points, 4 cards
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, buy(8)).ok());
  ASSERT_TRUE(game.apply(1, take({"white", "blue", "green"})).ok());
  EXPECT_EQ(game.result()["winners"], Json::array({1}));
}

// ---- passing ----

// Nobody can take (no gems in the bank), reserve (three reserved each) or buy (no tokens).
State stuck(int seats) {
  State state = dealt(seats);
  state.bank = tokens(0, 0, 0, 0, 0, 5);
  for (int seat = 0; seat < seats; ++seat) {
    for (int i = 0; i < 3; ++i) put_reserved(state, seat, state.decks[2].front(), true);
  }
  return state;
}

TEST(SplendorPass, OnlyWhenNothingElseIsLegal) {
  SplendorGame normal(2, 1);
  expect_rejected(normal, 0, {{"action", "pass"}}, "cannot_pass");
  SplendorGame game(stuck(3));
  EXPECT_EQ(game.legal_moves(0), Json::array({{{"action", "pass"}}}));
  expect_rejected(game, 0, {{"action", "pass"}, {"why", 1}}, "bad_move");
  const auto passed = game.apply(0, {{"action", "pass"}});
  ASSERT_TRUE(passed.ok());
  EXPECT_EQ(passed.events()[0], Json({{"type", "pass"}, {"seat", 0}}));
  EXPECT_EQ(game.state().current, 1);
}

TEST(SplendorPass, AFullRoundOfPassesEndsTheGame) {
  SplendorGame game(stuck(3));
  ASSERT_TRUE(game.apply(0, {{"action", "pass"}}).ok());
  ASSERT_TRUE(game.apply(1, {{"action", "pass"}}).ok());
  EXPECT_FALSE(game.finished());
  ASSERT_TRUE(game.apply(2, {{"action", "pass"}}).ok());
  EXPECT_TRUE(game.finished());
  EXPECT_EQ(game.result()["ended_by"], "stalemate");
  EXPECT_EQ(game.result()["winners"], Json::array({0, 1, 2}));
}

// ---- turns, phases, malformed input ----

TEST(SplendorRejections, TurnPhaseAndShape) {
  SplendorGame game(3, 1);
  expect_rejected(game, 1, take({"white", "blue", "green"}), "not_your_turn");
  expect_rejected(game, 7, take({"white", "blue", "green"}), "not_your_turn");
  expect_rejected(game, kSpectator, take({"white", "blue", "green"}), "not_your_turn");
  expect_rejected(game, 0, give_back({{"white", 1}}), "wrong_phase");
  expect_rejected(game, 0, choose_noble(1), "wrong_phase");
  expect_rejected(game, 0, nullptr, "bad_move");
  expect_rejected(game, 0, "pass", "bad_move");
  expect_rejected(game, 0, Json::array({"take"}), "bad_move");
  expect_rejected(game, 0, {{"action", 7}}, "bad_move");
  expect_rejected(game, 0, {{"gems", {"white"}}}, "bad_move");
  expect_rejected(game, 0, {{"action", "steal"}}, "unknown_action");
  const auto r = game.apply(0, {{"action", std::string(5000, 'x')}});
  EXPECT_LT(r.message().size(), 200U);  // abusive input is quoted only in part
  // Quoting cuts between characters, never inside one: the message stays valid UTF-8.
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xC3\xA9";
  for (const Json& move : {take({accents, "white", "blue"}), Json({{"action", accents}}),
                           Json({{"action", "take"}, {accents, 1}})}) {
    const auto rejected = game.apply(0, move);
    EXPECT_FALSE(rejected.ok());
    EXPECT_NO_THROW((void)Json(rejected.message()).dump()) << rejected.code();
  }
}

// ---- views and prompts ----

TEST(SplendorViews, PublicBoardAndPlayers) {
  State state = dealt(2);
  put_reserved(state, 1, state.decks[0].front(), true);
  give_tokens(state, 1, tokens(1, 0, 2, 0, 0, 1));
  SplendorGame game(state);
  const Json view = game.view(0);
  EXPECT_EQ(view["you"], 0);
  EXPECT_EQ(view["phase"], "play");
  EXPECT_EQ(view["turn"], 0);
  EXPECT_EQ(view["round"], 1);
  EXPECT_EQ(view["final_round"], false);
  EXPECT_EQ(view["bank"],
            Json({{"white", 3}, {"blue", 4}, {"green", 2}, {"red", 4}, {"black", 4}, {"gold", 4}}));
  ASSERT_EQ(view["rows"].size(), 3U);
  EXPECT_EQ(view["rows"][0][0], state.rows[0][0]);
  EXPECT_EQ(view["decks"], Json::array({35, 26, 16}));
  EXPECT_EQ(view["nobles"], Json(state.nobles));
  const Json& other = view["players"][1];
  EXPECT_EQ(other["seat"], 1);
  EXPECT_EQ(other["tokens"],
            Json({{"white", 1}, {"blue", 0}, {"green", 2}, {"red", 0}, {"black", 0}, {"gold", 1}}));
  EXPECT_EQ(other["token_count"], 4);
  EXPECT_EQ(other["bonuses"],
            Json({{"white", 0}, {"blue", 0}, {"green", 0}, {"red", 0}, {"black", 0}}));
  EXPECT_EQ(other["points"], 0);
  EXPECT_EQ(other["cards_bought"], 0);
  EXPECT_EQ(other["reserved_count"], 1);
  EXPECT_EQ(other["reserved"], Json::array({{{"level", 1}, {"blind", true}, {"card", nullptr}}}));
  EXPECT_EQ(other["nobles"], Json::array());
  EXPECT_FALSE(view.contains("return_count"));
  EXPECT_FALSE(view.contains("result"));
  EXPECT_TRUE(game.view(kSpectator)["you"].is_null());
  EXPECT_EQ(game.view(1)["players"][1]["reserved"][0]["card"], state.player(1).reserved[0].card);
  EXPECT_EQ(leaks(game), "");
  // Nothing but counts of the decks: the dump holds none of their cards.
  for (Seat viewer = kSpectator; viewer < 2; ++viewer) {
    const CardMask shown = card_ids(game.view(viewer));
    for (const auto& deck : state.decks) {
      for (int card : deck) EXPECT_FALSE(shown[static_cast<std::size_t>(card)]);
    }
  }
}

TEST(SplendorViews, PromptListsTheLegalMovesGroupedByAction) {
  State state = dealt(2);
  put_face_up(state, 18, 0);
  give_tokens(state, 0, tokens(0, 0, 0, 3, 0, 0));
  SplendorGame game(state);
  const Json prompt = game.prompt(0);
  EXPECT_EQ(prompt["actions"], Json::array({"take", "reserve", "buy"}));
  EXPECT_EQ(prompt["legal"], game.legal_moves(0));
  // 10 triples, and pairs from the four stacks still at 4 (red is down to 1).
  int takes = 0;
  int reserves = 0;
  int buys = 0;
  for (const Json& m : prompt["legal"]) {
    takes += m["action"] == "take" ? 1 : 0;
    reserves += m["action"] == "reserve" ? 1 : 0;
    buys += m["action"] == "buy" ? 1 : 0;
  }
  EXPECT_EQ(takes, 14);
  EXPECT_EQ(reserves, 12 + 3);
  EXPECT_GE(buys, 1);
  EXPECT_TRUE(game.prompt(1).is_null());
  EXPECT_TRUE(game.legal_moves(1).empty());
  for (const Json& m : prompt["legal"]) {
    SplendorGame copy = game;
    EXPECT_TRUE(copy.apply(0, m).ok()) << m.dump();
  }
}

TEST(SplendorViews, FullStateHasEverythingAndCloneIsEqual) {
  SplendorGame game(4, 3);
  ASSERT_TRUE(game.apply(0, reserve_blind(2)).ok());
  const Json full = game.full_state();
  EXPECT_EQ(full["decks"][1].size(), 25U);
  EXPECT_EQ(full["players"][0]["reserved"][0][1], true);
  auto copy = game.clone();
  EXPECT_EQ(copy->full_state(), full);
  EXPECT_EQ(copy->state_hash(), game.state_hash());
  ASSERT_TRUE(copy->apply(1, take({"white", "blue", "green"})).ok());
  EXPECT_NE(copy->state_hash(), game.state_hash());
}

}  // namespace
}  // namespace parlor::splendor
