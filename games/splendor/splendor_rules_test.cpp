// Table tests for Splendor's actions: setup, taking gems, returning tokens, reserving,
// buying (bonuses, gold as wild, gold choices). Nobles, the end and views are in
// splendor_game_test.cpp.
#include <gtest/gtest.h>

#include "games/splendor/splendor_test_util.h"

namespace parlor::splendor {
namespace {

using namespace testing;  // NOLINT: the test helpers

bool listed(const Json& legal, const Json& move) {
  for (const Json& m : legal) {
    if (m == move) return true;
  }
  return false;
}

// ---- setup ----

TEST(SplendorSetup, DealsByPlayerCount) {
  for (int seats = 2; seats <= 4; ++seats) {
    SplendorGame game(seats, 42);
    const State& s = game.state();
    EXPECT_EQ(s.bank, initial_bank(seats));
    EXPECT_EQ(s.nobles.size(), static_cast<std::size_t>(seats + 1));
    EXPECT_EQ(s.decks[0].size(), 36U);
    EXPECT_EQ(s.decks[1].size(), 26U);
    EXPECT_EQ(s.decks[2].size(), 16U);
    for (int level = 0; level < kLevels; ++level) {
      for (int card : s.rows[static_cast<std::size_t>(level)]) {
        EXPECT_EQ(card_def(card).level, level + 1);
      }
    }
    EXPECT_EQ(s.current, 0);
    EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
    EXPECT_EQ(invariants(game), "");
  }
}

TEST(SplendorSetup, TheSeedDecidesTheDeal) {
  EXPECT_EQ(SplendorGame(3, 9).state_hash(), SplendorGame(3, 9).state_hash());
  EXPECT_EQ(SplendorGame(3, 9).full_state(), SplendorGame(3, 9).full_state());
  EXPECT_NE(SplendorGame(3, 9).state().decks, SplendorGame(3, 10).state().decks);
}

TEST(SplendorSetup, InfoAndFactory) {
  const GameInfo info = splendor_info();
  EXPECT_EQ(info.kind, "splendor");
  EXPECT_EQ(info.name, "Gem Merchants");
  EXPECT_EQ(info.min_seats, 2);
  EXPECT_EQ(info.max_seats, 4);
  EXPECT_TRUE(info.options.empty());
  auto game = info.create(Json::object(), 3, 5);
  EXPECT_EQ(game->kind(), "splendor");
  EXPECT_EQ(game->seat_count(), 3);
  EXPECT_EQ(game->state_hash(), SplendorGame(3, 5).state_hash());
}

// ---- taking gems ----

struct TakeCase {
  const char* name;
  Tokens bank;
  Json gems;
  const char* code;  // "" when accepted
};

TEST(SplendorTake, TableOfTakes) {
  const Tokens full = tokens(4, 4, 4, 4, 4, 5);
  const std::vector<TakeCase> cases = {
      {"three different", full, {"white", "blue", "red"}, ""},
      {"order does not matter", full, {"red", "white", "blue"}, ""},
      {"two from a stack of exactly 4", full, {"green", "green"}, ""},
      {"two from a stack of 3", tokens(4, 4, 3, 4, 4), {"green", "green"}, "stack_too_small"},
      {"two from a stack of 1", tokens(4, 4, 1, 4, 4), {"green", "green"}, "stack_too_small"},
      {"two different while five remain", full, {"white", "blue"}, "too_few_gems"},
      {"one while five remain", full, {"white"}, "too_few_gems"},
      {"two different while two remain", tokens(0, 2, 0, 1, 0, 5), {"blue", "red"}, ""},
      {"one while two remain", tokens(0, 2, 0, 1, 0, 5), {"blue"}, "too_few_gems"},
      {"one while one remains", tokens(0, 0, 0, 1, 0, 5), {"red"}, ""},
      {"two of the only colour left, 4 of it", tokens(0, 0, 0, 4, 0), {"red", "red"}, ""},
      {"three different while three remain",
       tokens(1, 0, 1, 0, 1),
       {"white", "green", "black"},
       ""},
      {"an empty colour", tokens(4, 4, 4, 0, 4), {"white", "blue", "red"}, "not_enough_gems"},
      {"gold", full, {"gold", "white", "blue"}, "cannot_take_gold"},
      {"an unknown colour", full, {"pink", "white", "blue"}, "unknown_color"},
      {"a card string", full, {"3D", "white", "blue"}, "unknown_color"},
      {"numbers", full, {1, 2, 3}, "unknown_color"},
      {"two of one and one of another", full, {"white", "white", "blue"}, "bad_take"},
      {"three of one colour", tokens(7, 7, 7, 7, 7), {"white", "white", "white"}, "bad_take"},
      {"four gems", full, {"white", "blue", "red", "green"}, "bad_move"},
      {"no gems", full, Json::array(), "bad_move"},
      {"not an array", full, "white", "bad_move"},
  };
  for (const TakeCase& c : cases) {
    SCOPED_TRACE(c.name);
    State state = dealt(2);
    state.bank = c.bank;
    SplendorGame game(state);
    const Json full_move = {{"action", "take"}, {"gems", c.gems}};
    const bool in_legal = listed(game.legal_moves(0), full_move);
    if (std::string(c.code).empty()) {
      const auto result = game.apply(0, full_move);
      ASSERT_TRUE(result.ok()) << result.code() << " " << result.message();
      int taken = 0;
      for (int t = 0; t < kTokenKinds; ++t) {
        const auto i = static_cast<std::size_t>(t);
        EXPECT_EQ(game.state().bank[i] + game.state().player(0).tokens[i], c.bank[i]);
        taken += game.state().player(0).tokens[i];
      }
      EXPECT_EQ(taken, static_cast<int>(c.gems.size()));
      EXPECT_EQ(game.state().current, 1);
    } else {
      EXPECT_FALSE(in_legal);
      expect_rejected(game, 0, full_move, c.code);
    }
  }
}

TEST(SplendorTake, MissingOrExtraFieldsAreMalformed) {
  SplendorGame game(2, 1);
  expect_rejected(game, 0, {{"action", "take"}}, "bad_move");
  expect_rejected(game, 0, {{"action", "take"}, {"gems", {"white", "blue", "red"}}, {"x", 1}},
                  "bad_move");
}

TEST(SplendorTake, OptionsEnumerateEveryCombination) {
  EXPECT_EQ(take_options(tokens(4, 4, 4, 4, 4, 5)).size(), 10U + 5U);
  EXPECT_EQ(take_options(tokens(7, 7, 7, 7, 7, 5)).size(), 10U + 5U);
  EXPECT_EQ(take_options(tokens(3, 3, 3, 3, 3, 5)).size(), 10U);
  // Three colours left, one stack of 4: one triple and one pair.
  EXPECT_EQ(take_options(tokens(0, 4, 1, 0, 2)),
            (std::vector<std::vector<int>>{{1, 2, 4}, {1, 1}}));
  EXPECT_EQ(take_options(tokens(0, 3, 0, 0, 2)), (std::vector<std::vector<int>>{{1, 4}}));
  EXPECT_EQ(take_options(tokens(0, 0, 0, 0, 1)), (std::vector<std::vector<int>>{{4}}));
  EXPECT_TRUE(take_options(tokens(0, 0, 0, 0, 0, 5)).empty());
}

// ---- returning tokens ----

TEST(SplendorReturn, TakeReachingElevenAsksTheSameSeatToReturnOne) {
  State state = dealt(3);
  give_tokens(state, 0, tokens(2, 2, 2, 2, 0, 0));  // 8 tokens
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, take({"white", "blue", "black"})).ok());
  EXPECT_EQ(game.state().phase, Phase::kReturn);
  EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
  EXPECT_EQ(game.view(0)["return_count"], 1);
  EXPECT_EQ(game.view(0)["phase"], "return");
  const Json legal = game.legal_moves(0);
  EXPECT_EQ(legal.size(), 5U);  // one of each colour held (no gold)
  EXPECT_EQ(game.prompt(0)["actions"], Json::array({"return"}));
  expect_rejected(game, 0, take({"white", "blue", "red"}), "must_return_tokens");
  expect_rejected(game, 0, buy(game.state().rows[0][0]), "must_return_tokens");
  expect_rejected(game, 0, choose_noble(1), "must_return_tokens");
  expect_rejected(game, 0, give_back({{"white", 2}}), "bad_return");
  expect_rejected(game, 0, give_back({{"gold", 1}}), "bad_return");
  expect_rejected(game, 0, give_back({{"white", 0}, {"red", 1}}), "bad_return");
  expect_rejected(game, 0, Json::parse(R"({"action":"return","gems":{"white":0,"red":1}})"),
                  "bad_return");
  expect_rejected(game, 0, give_back({{"purple", 1}}), "unknown_color");
  expect_rejected(game, 0, give_back(Json::object()), "bad_move");
  expect_rejected(game, 0, give_back(Json::array({"white"})), "bad_move");
  expect_rejected(game, 1, give_back({{"white", 1}}), "not_your_turn");
  const auto result = game.apply(0, give_back({{"black", 1}}));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.events().back()["type"], "return");
  EXPECT_EQ(game.state().player(0).token_count(), 10);
  EXPECT_EQ(game.state().player(0).tokens, tokens(3, 3, 2, 2, 0, 0));
  EXPECT_EQ(game.state().current, 1);
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorReturn, TakeReachingThirteenReturnsThreeOfThePlayersChoice) {
  State state = dealt(4);
  give_tokens(state, 0, tokens(2, 2, 2, 2, 1, 1));  // 10 tokens, gold included
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, take({"white", "blue", "green"})).ok());
  EXPECT_EQ(game.state().player(0).token_count(), 13);
  EXPECT_EQ(game.view(0)["return_count"], 3);
  // Multisets of 3 from {white 3, blue 3, green 3, red 2, black 1, gold 1}, brute force.
  const Tokens held = game.state().player(0).tokens;
  int expected = 0;
  for (int a = 0; a < kTokenKinds; ++a) {
    for (int b = a; b < kTokenKinds; ++b) {
      for (int c = b; c < kTokenKinds; ++c) {
        Tokens need{};
        ++need[static_cast<std::size_t>(a)];
        ++need[static_cast<std::size_t>(b)];
        ++need[static_cast<std::size_t>(c)];
        bool ok = true;
        for (int t = 0; t < kTokenKinds; ++t) {
          ok = ok && need[static_cast<std::size_t>(t)] <= held[static_cast<std::size_t>(t)];
        }
        expected += ok ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(game.legal_moves(0).size(), static_cast<std::size_t>(expected));
  expect_rejected(game, 0, give_back({{"black", 2}, {"white", 1}}), "bad_return");
  expect_rejected(game, 0, give_back({{"white", 2}}), "bad_return");
  EXPECT_TRUE(listed(game.legal_moves(0), give_back({{"gold", 1}, {"red", 2}})));
  ASSERT_TRUE(game.apply(0, give_back({{"gold", 1}, {"red", 2}})).ok());
  EXPECT_EQ(game.state().player(0).tokens, tokens(3, 3, 3, 0, 1, 0));
  EXPECT_EQ(game.state().bank[kGold], 5);
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorReturn, ReserveWithGoldAtTenTokensReturnsOne) {
  State state = dealt(2);
  give_tokens(state, 0, tokens(2, 2, 2, 2, 2, 0));
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, reserve_blind(3)).ok());
  EXPECT_EQ(game.state().phase, Phase::kReturn);
  ASSERT_TRUE(game.apply(0, give_back({{"gold", 1}})).ok());  // gold may go back too
  EXPECT_EQ(game.state().current, 1);
}

TEST(SplendorReturn, ReturnOptionsAreMultisets) {
  EXPECT_EQ(return_options(tokens(1, 0, 0, 0, 0, 0), 1).size(), 1U);
  EXPECT_EQ(return_options(tokens(2, 1, 0, 0, 0, 0), 2).size(), 2U);  // ww, wb
  EXPECT_EQ(return_options(tokens(3, 3, 3, 2, 1, 1), 3).size(), 43U);
}

// ---- reserving ----

TEST(SplendorReserve, FaceUpCardIsRefilledAtOnceAndGivesGold) {
  State state = dealt(2);
  const int card = state.rows[1][2];
  const int next = state.decks[1].back();
  SplendorGame game(state);
  const auto result = game.apply(0, reserve_card(card));
  ASSERT_TRUE(result.ok()) << result.message();
  const State& s = game.state();
  EXPECT_EQ(s.player(0).reserved, (std::vector<ReservedCard>{{card, false}}));
  EXPECT_EQ(s.rows[1][2], next);
  EXPECT_EQ(s.decks[1].size(), 25U);
  EXPECT_EQ(s.player(0).tokens[kGold], 1);
  EXPECT_EQ(s.bank[kGold], 4);
  ASSERT_EQ(result.events().size(), 2U);
  EXPECT_EQ(result.events()[0],
            Json({{"type", "reserve"}, {"seat", 0}, {"card", card}, {"gold", 1}}));
  EXPECT_EQ(result.events()[1],
            Json({{"type", "refill"}, {"level", 2}, {"slot", 2}, {"card", next}}));
  // A card reserved face up was seen by everyone.
  EXPECT_EQ(game.view(1)["players"][0]["reserved"][0],
            Json({{"level", 2}, {"blind", false}, {"card", card}}));
  EXPECT_EQ(game.view(kSpectator)["players"][0]["reserved"][0]["card"], card);
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorReserve, BlindReserveStaysHiddenFromOthers) {
  State state = dealt(3);
  const int top = state.decks[2].back();
  SplendorGame game(state);
  const auto result = game.apply(0, reserve_blind(3));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(game.state().player(0).reserved, (std::vector<ReservedCard>{{top, true}}));
  EXPECT_EQ(result.events()[0],
            Json({{"type", "reserve"}, {"seat", 0}, {"level", 3}, {"gold", 1}}));
  EXPECT_FALSE(card_ids(result.events())[static_cast<std::size_t>(top)]);
  EXPECT_EQ(game.view(0)["players"][0]["reserved"][0],
            Json({{"level", 3}, {"blind", true}, {"card", top}}));
  for (Seat viewer : {kSpectator, 1, 2}) {
    const Json view = game.view(viewer);
    EXPECT_EQ(view["players"][0]["reserved"][0],
              Json({{"level", 3}, {"blind", true}, {"card", nullptr}}));
    EXPECT_EQ(view["players"][0]["reserved_count"], 1);
    EXPECT_FALSE(card_ids(view)[static_cast<std::size_t>(top)]);
  }
  EXPECT_EQ(game.view(1)["decks"], Json::array({36, 26, 15}));
  EXPECT_EQ(leaks(game), "");
}

TEST(SplendorReserve, AtMostThreeReserved) {
  State state = dealt(2);
  put_reserved(state, 0, state.decks[0].front(), true);
  put_reserved(state, 0, state.rows[1][0], false);
  put_reserved(state, 0, state.decks[2].front(), true);
  SplendorGame game(state);
  expect_rejected(game, 0, reserve_card(game.state().rows[0][0]), "too_many_reserved");
  expect_rejected(game, 0, reserve_blind(1), "too_many_reserved");
  for (const Json& move : game.legal_moves(0)) EXPECT_NE(move["action"], "reserve");
}

TEST(SplendorReserve, NoGoldLeftStillReserves) {
  State state = dealt(2);
  give_tokens(state, 1, tokens(0, 0, 0, 0, 0, 5));
  SplendorGame game(state);
  const auto result = game.apply(0, reserve_blind(1));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.events()[0]["gold"], 0);
  EXPECT_EQ(game.state().player(0).tokens[kGold], 0);
  EXPECT_EQ(game.state().player(0).reserved.size(), 1U);
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorReserve, RejectionsNameTheProblem) {
  State state = dealt(2);
  const int in_deck = state.decks[0].front();
  SplendorGame game(state);
  expect_rejected(game, 0, reserve_card(in_deck), "card_not_available");
  expect_rejected(game, 0, reserve_card(0), "unknown_card");
  expect_rejected(game, 0, reserve_card(91), "unknown_card");
  expect_rejected(game, 0, {{"action", "reserve"}, {"card", "7"}}, "unknown_card");
  expect_rejected(game, 0, {{"action", "reserve"}, {"card", 1.5}}, "unknown_card");
  expect_rejected(game, 0, {{"action", "reserve"}, {"card", 18446744073709551615ULL}},
                  "unknown_card");
  expect_rejected(game, 0, reserve_blind(0), "bad_level");
  expect_rejected(game, 0, reserve_blind(4), "bad_level");
  expect_rejected(game, 0, {{"action", "reserve"}}, "bad_move");
  expect_rejected(game, 0, {{"action", "reserve"}, {"card", game.state().rows[0][0]}, {"level", 1}},
                  "bad_move");
}

TEST(SplendorReserve, AnEmptyDeckLeavesEmptySlotsAndNoBlindReserve) {
  State state = dealt(2);
  empty_deck(state, 3);
  const int card = state.rows[2][1];
  SplendorGame game(state);
  expect_rejected(game, 0, reserve_blind(3), "empty_deck");
  EXPECT_FALSE(listed(game.legal_moves(0), reserve_blind(3)));
  EXPECT_TRUE(listed(game.legal_moves(0), reserve_blind(2)));
  const auto result = game.apply(0, reserve_card(card));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.events().size(), 1U);  // nothing to refill
  EXPECT_EQ(game.state().rows[2][1], 0);
  const Json view = game.view(1);
  EXPECT_EQ(view["decks"][2], 0);
  EXPECT_TRUE(view["rows"][2][1].is_null());
  EXPECT_EQ(view["rows"][2].size(), 4U);
  // Parsed JSON holds 0 as an unsigned number: still no card, even with an empty slot.
  expect_rejected(game, 1, Json::parse(R"({"action":"reserve","card":0})"), "unknown_card");
  expect_rejected(game, 1, Json::parse(R"({"action":"buy","card":0})"), "unknown_card");
  expect_rejected(game, 1, Json::parse(R"({"action":"reserve","level":0})"), "bad_level");
}

// ---- buying ----

TEST(SplendorBuy, PaysWithGemsAndRefills) {
  State state = dealt(2);
  put_face_up(state, 18, 0);  // green, costs 3 red
  const int next = state.decks[0].back();
  give_tokens(state, 0, tokens(0, 0, 0, 3, 1, 0));
  SplendorGame game(state);
  const auto result = game.apply(0, buy(18));
  ASSERT_TRUE(result.ok()) << result.message();
  const State& s = game.state();
  EXPECT_EQ(s.player(0).tokens, tokens(0, 0, 0, 0, 1, 0));
  EXPECT_EQ(s.bank[3], 4);
  EXPECT_EQ(s.player(0).bonuses[2], 1);
  EXPECT_EQ(s.player(0).bought, std::vector<int>{18});
  EXPECT_EQ(s.rows[0][0], next);
  EXPECT_EQ(
      result.events()[0],
      Json(
          {{"type", "buy"}, {"seat", 0}, {"card", 18}, {"from", "table"}, {"paid", {{"red", 3}}}}));
  EXPECT_EQ(result.events()[1]["type"], "refill");
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorBuy, BonusesReduceTheCost) {
  State state = dealt(2);
  put_bought(state, 0, 25);   // red bonus
  put_bought(state, 0, 27);   // red bonus
  put_face_up(state, 60, 1);  // level 2 red, 1 point: blue 3, red 2, black 3
  give_tokens(state, 0, tokens(0, 3, 0, 0, 3, 0));
  SplendorGame game(state);
  ASSERT_TRUE(game.apply(0, buy(60)).ok());
  EXPECT_EQ(game.state().player(0).tokens, tokens(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(game.state().player(0).points, 1);
  EXPECT_EQ(game.state().player(0).bonuses[3], 3);
}

TEST(SplendorBuy, CannotAffordIsRejected) {
  State state = dealt(2);
  put_face_up(state, 18, 0);  // 3 red
  give_tokens(state, 0, tokens(0, 0, 0, 1, 0, 1));
  SplendorGame game(state);
  EXPECT_FALSE(listed(game.legal_moves(0), buy(18)));
  expect_rejected(game, 0, buy(18), "cannot_afford");
  const auto r = game.apply(0, buy(18));
  EXPECT_NE(r.message().find("card 18"), std::string::npos) << r.message();
}

TEST(SplendorBuy, ReservedCardWithGoldCoveringTheShortfall) {
  State state = dealt(3);
  put_reserved(state, 0, 72, true);  // level 3 white, 4 points: 7 black
  give_tokens(state, 0, tokens(0, 0, 0, 0, 5, 2));
  SplendorGame game(state);
  // Gold must cover 2 black and there is no gold left over: no choice, a single entry.
  EXPECT_TRUE(listed(game.legal_moves(0), buy(72)));
  EXPECT_FALSE(listed(game.legal_moves(0), buy_with_gold(72, {{"black", 2}})));
  const auto result = game.apply(0, buy(72));
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.events()[0]["from"], "reserve");
  EXPECT_EQ(result.events()[0]["card"], 72);  // bought, so public now
  EXPECT_EQ(result.events()[0]["paid"], Json({{"black", 5}, {"gold", 2}}));
  EXPECT_EQ(result.events().size(), 1U);  // nothing to refill
  const State& s = game.state();
  EXPECT_TRUE(s.player(0).reserved.empty());
  EXPECT_EQ(s.player(0).tokens, tokens(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(s.bank[kGold], 5);
  EXPECT_EQ(s.player(0).points, 4);
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorBuy, OnlyFaceUpOrOwnReservedCards) {
  State state = dealt(2);
  put_reserved(state, 1, 18, false);
  give_tokens(state, 0, tokens(0, 0, 0, 3, 0, 0));
  const int in_deck = state.decks[0].front();
  SplendorGame game(state);
  expect_rejected(game, 0, buy(18), "card_not_available");
  expect_rejected(game, 0, buy(in_deck), "card_not_available");
  // The same words whether the card is in a deck or someone's reserve: nothing leaks.
  auto message = [&](int card) { return SplendorGame(state).apply(0, buy(card)).message(); };
  EXPECT_EQ(message(18).substr(message(18).find(' ', 5)),
            message(in_deck).substr(message(in_deck).find(' ', 5)));
  expect_rejected(game, 0, buy(0), "unknown_card");
  expect_rejected(game, 0, {{"action", "buy"}}, "bad_move");
}

TEST(SplendorBuy, GoldChoicesWhereTheyMatter) {
  State state = dealt(2);
  put_face_up(state, 27, 0);  // red: white 2, red 2
  give_tokens(state, 0, tokens(2, 0, 0, 1, 0, 2));
  SplendorGame game(state);
  // Default: 2 white, 1 red, 1 gold (the red shortfall). Extra gold can replace one white:
  // the only other choice (gold covers red 1 + white 1).
  const Json legal = game.legal_moves(0);
  EXPECT_TRUE(listed(legal, buy(27)));
  EXPECT_TRUE(listed(legal, buy_with_gold(27, {{"white", 1}, {"red", 1}})));
  int entries = 0;
  for (const Json& m : legal) entries += m["action"] == "buy" && m["card"] == 27 ? 1 : 0;
  EXPECT_EQ(entries, 3);  // default; white 1 + red 1; red 2 (both gold on red, red gem kept)
  EXPECT_TRUE(listed(legal, buy_with_gold(27, {{"red", 2}})));
  expect_rejected(game, 0, buy_with_gold(27, {{"red", 1}}), "bad_payment");    // the default
  expect_rejected(game, 0, buy_with_gold(27, {{"white", 2}}), "bad_payment");  // red short
  expect_rejected(game, 0, buy_with_gold(27, {{"white", 2}, {"red", 1}}), "bad_payment");
  expect_rejected(game, 0, buy_with_gold(27, {{"red", 3}}), "bad_payment");  // over the need
  expect_rejected(game, 0, buy_with_gold(27, {{"blue", 1}, {"red", 1}}), "bad_payment");
  expect_rejected(game, 0, buy_with_gold(27, {{"gold", 1}}), "bad_payment");
  expect_rejected(game, 0, buy_with_gold(27, {{"red", 0}}), "bad_payment");
  expect_rejected(game, 0, buy_with_gold(27, Json::object()), "bad_payment");
  expect_rejected(game, 0, buy_with_gold(27, 1), "bad_payment");
  const auto result = game.apply(0, buy_with_gold(27, {{"white", 1}, {"red", 1}}));
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.events()[0]["paid"], Json({{"white", 1}, {"red", 1}, {"gold", 2}}));
  EXPECT_EQ(game.state().player(0).tokens, tokens(1, 0, 0, 0, 0, 0));
  EXPECT_EQ(invariants(game), "");
}

TEST(SplendorBuy, ExtraGoldChoicesEnumerate) {
  PlayerState p;
  p.tokens = tokens(2, 0, 0, 1, 0, 2);
  const Price price = price_for(p, card_def(27));
  EXPECT_TRUE(price.affordable);
  EXPECT_EQ(price.gold_needed, 1);
  EXPECT_EQ(extra_gold_choices(price, 2), (std::vector<Gems>{{0, 0, 0, 2, 0}, {1, 0, 0, 1, 0}}));
  p.tokens = tokens(2, 0, 0, 2, 0, 0);
  EXPECT_TRUE(extra_gold_choices(price_for(p, card_def(27)), 0).empty());
}

}  // namespace
}  // namespace parlor::splendor
