// The server's side of the engine contract, without HTTP: answers an engine might give,
// good and bad, applied to an ExternalGame.
#include "games/external/external_game.h"

#include <gtest/gtest.h>

namespace parlor::external {
namespace {

std::shared_ptr<const EngineConfig> two_player_config() {
  std::string error;
  auto config = parse_engine_config(Json::parse(R"({"deck":"52","player_count":2,
        "stacks":[{"id":"pile","label":"Pile","orientation":"horizontal","max-size":52,"alignment":"center"}],
        "info":[{"id":"stock","label":"Stock","value":52}]})"),
                                    error);
  EXPECT_TRUE(config) << error;
  return std::make_shared<const EngineConfig>(*config);
}

Json init_answer() {
  return Json::parse(
      R"({"players":[{"id":"seat0","team":0},{"id":"seat1","team":1}],"state":{"phase":"deal"}})");
}

Json next_move(Json action, Json events, std::string phase = "play") {
  return {{"call", "next"},
          {"action", std::move(action)},
          {"answer", Json::array({{{"phase", phase}}, std::move(events)})}};
}

// An engine's prompt for `player` to play one card of `from` onto the pile.
Json prompt_play(const std::string& player, const Json& from) {
  return {
      {"type", "prompt_play"}, {"player", player}, {"to", "pile"}, {"count", 1}, {"from", from}};
}

// A game with both players dealt five cards and seat 0 prompted to play one of its hand.
ExternalGame dealt_game(std::uint64_t seed = 7) {
  ExternalGame game("fake", two_player_config(), seed);
  EXPECT_TRUE(game.apply(kEngineSeat, {{"call", "init"}, {"answer", init_answer()}}).ok());
  EXPECT_TRUE(game.apply(kEngineSeat, next_move(nullptr, Json::parse(R"([
      {"type":"draw","player":"seat0","count":5},{"type":"draw","player":"seat1","count":5},
      {"type":"set_info","id":"stock","value":42}])")))
                  .ok());
  const Json hand = game.view(0)["hand"];
  EXPECT_TRUE(
      game.apply(kEngineSeat, next_move(nullptr, Json::array({prompt_play("seat0", hand)}))).ok());
  return game;
}

TEST(EngineConfig, NamesTheWrongField) {
  std::string error;
  EXPECT_FALSE(parse_engine_config(Json::parse(R"({"deck":"32","player_count":4})"), error));
  EXPECT_NE(error.find("config.deck"), std::string::npos);
  EXPECT_FALSE(parse_engine_config(
      Json::parse(R"({"deck":"52","player_count":4,"stacks":[{"id":"a","label":"A"}]})"), error));
  EXPECT_NE(error.find("config.stacks[0].max-size"), std::string::npos);
  EXPECT_FALSE(parse_engine_config(Json::parse(R"({"deck":"52","player_count":0})"), error));
  EXPECT_NE(error.find("player_count"), std::string::npos);
  // A field of the wrong type is named too, never thrown (found by the engine_answer fuzzer).
  EXPECT_FALSE(parse_engine_config(Json::parse(R"({"deck":"52","player_count":4,"stacks":[
      {"id":"k","label":"K","max-size":6,"alignment":0}]})"),
                                   error));
  EXPECT_NE(error.find("config.stacks[0].alignment"), std::string::npos) << error;
  EXPECT_FALSE(parse_engine_config(Json::parse(R"({"deck":"52","player_count":4,"stacks":[
      {"id":"k","label":"K","max-size":6,"orientation":["vertical"]}]})"),
                                   error));
  EXPECT_NE(error.find("config.stacks[0].orientation"), std::string::npos) << error;
}

TEST(ExternalGame, WaitsForInitThenForNext) {
  ExternalGame game("fake", two_player_config(), 1);
  auto call = game.waiting_call();
  ASSERT_TRUE(call);
  EXPECT_FALSE(call->post);
  EXPECT_EQ(call->target, "/init?players=seat0,seat1");
  ASSERT_TRUE(game.apply(kEngineSeat, {{"call", "init"}, {"answer", init_answer()}}).ok());
  call = game.waiting_call();
  ASSERT_TRUE(call);
  EXPECT_TRUE(call->post);
  const Json body = Json::parse(call->body);
  EXPECT_TRUE(body["action"].is_null());
  EXPECT_EQ(body["state"]["phase"], "deal");
  EXPECT_EQ(body["players"][1]["hand"], Json::array());
}

TEST(ExternalGame, DealsTheSameFromTheSameSeed) {
  EXPECT_EQ(dealt_game(3).full_state(), dealt_game(3).full_state());
  EXPECT_NE(dealt_game(3).view(0)["hand"], dealt_game(4).view(0)["hand"]);
}

TEST(ExternalGame, ViewsShowOnlyTheSeatsOwnHand) {
  ExternalGame game = dealt_game();
  EXPECT_EQ(game.view(0)["hand"].size(), 5U);
  EXPECT_FALSE(game.view(kSpectator).contains("hand"));
  const std::string other = game.view(1).dump();
  // The view held by name: a range-for over game.view(0)["hand"] would walk a temporary
  // freed before the loop's first step.
  const Json own = game.view(0);
  for (const Json& card : own["hand"]) {
    EXPECT_EQ(other.find(card.get<std::string>()), std::string::npos);
  }
  EXPECT_EQ(game.view(1)["players"][0]["cards"], 5);
  EXPECT_TRUE(game.prompt(1).is_null());
  EXPECT_EQ(game.prompt(0)["legal"].size(), 5U);
  EXPECT_EQ(game.view(kSpectator).dump().find("\"state\""), std::string::npos);
}

TEST(ExternalGame, ChecksAMoveAgainstThePromptBeforeTheEngineIsAsked) {
  ExternalGame game = dealt_game();
  MoveResult refusal = MoveResult::accepted();
  const std::string mine = game.view(0)["hand"][0];
  const std::string theirs = game.view(1)["hand"][0];
  EXPECT_FALSE(game.call_for_move(1, {{"action", "play"}, {"value", {theirs}}}, refusal));
  EXPECT_EQ(refusal.code(), "not_your_turn");
  EXPECT_FALSE(game.call_for_move(0, {{"action", "play"}, {"value", {theirs}}}, refusal));
  EXPECT_EQ(refusal.code(), "card_not_held");
  EXPECT_FALSE(game.call_for_move(0, {{"action", "play"}, {"value", Json::array()}}, refusal));
  EXPECT_EQ(refusal.code(), "illegal_move");
  EXPECT_FALSE(game.call_for_move(0, {{"action", "select"}, {"value", {mine}}}, refusal));
  EXPECT_EQ(refusal.code(), "bad_request");
  EXPECT_FALSE(game.call_for_move(0, {{"action", "play"}, {"value", {mine, mine}}}, refusal));
  EXPECT_EQ(refusal.code(), "bad_request");
  auto call = game.call_for_move(0, {{"action", "play"}, {"value", {mine}}}, refusal);
  ASSERT_TRUE(call);
  EXPECT_EQ(Json::parse(call->body)["action"], (Json{{"player", "seat0"}, {"value", {mine}}}));
  // A player cannot make up the engine's answer: a move is only ever a logged call.
  EXPECT_FALSE(game.apply(0, {{"action", "play"}, {"value", {mine}}}).ok());
}

TEST(ExternalGame, CarriesOutAnAnsweredPlay) {
  ExternalGame game = dealt_game();
  const std::string card = game.view(0)["hand"][2];
  MoveResult refusal = MoveResult::accepted();
  auto call = game.call_for_move(0, {{"action", "play"}, {"value", {card}}}, refusal);
  ASSERT_TRUE(call);
  const MoveResult result =
      game.apply(0, ExternalGame::answered(
                        *call, Json::array({{{"phase", "play"}, {"secret", 1}}, Json::parse(R"([
      {"type":"add_decoration","player":"seat0","name":"last","value":"played"}])")})));
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(game.view(0)["hand"].size(), 4U);
  EXPECT_EQ(game.view(1)["stacks"][0]["cards"], Json::array({card}));
  EXPECT_EQ(game.view(1)["players"][0]["decorations"]["last"], "played");
  EXPECT_EQ(result.events()[0]["type"], "play");
  EXPECT_EQ(game.view(1).dump().find("secret"), std::string::npos);
  EXPECT_TRUE(game.waiting_call());  // no prompt open: the engine is asked again
}

// Each malformed answer is refused whole: the table is as it was.
TEST(ExternalGame, RefusesMalformedAnswersAndChangesNothing) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"([{"type":"draw","player":"seat9","count":1}])", "not in this game"},
      {R"([{"type":"draw","player":"seat1","count":43}])", "deck holds 42"},
      {R"([{"type":"prompt_select","name":"x","player":"seat1","count":1,"from":[]}])",
       "non-empty"},
      {R"([{"type":"prompt_play","player":"seat1","to":"nowhere","count":1,"from":["AS"]}])",
       "no stack"},
      {R"([{"type":"end_game","scores":{"seat0":1,"seat1":0}},{"type":"shuffle"}])",
       "after end_game"},
      {R"([{"type":"end_game","scores":{"seat0":1}}])", "no integer for seat1"},
      {R"([{"type":"set_info","id":"nope","value":1}])", "no info line"},
      {R"([{"type":"teleport"}])", "no event type"},
      // Found by engine_answer_fuzz: naming these in the refusal threw a json type_error.
      {R"([{"type":42}])", "an event must be an object"},
      {R"([42])", "an event must be an object"},
      {R"([{"type":"prompt_select","name":"x","player":"seat1","count":1,"from":["a"]},
            {"type":"shuffle"}])",
       "prompt is open"},
  };
  for (const auto& [events, why] : bad) {
    ExternalGame game = dealt_game();
    const Json before = game.full_state();
    const std::uint64_t hash = game.state_hash();
    MoveResult refusal = MoveResult::accepted();
    const std::string card = game.view(0)["hand"][0];
    auto call = game.call_for_move(0, {{"action", "play"}, {"value", {card}}}, refusal);
    ASSERT_TRUE(call);
    const MoveResult answered = game.apply(
        0, ExternalGame::answered(*call, Json::array({{{"phase", "p"}}, Json::parse(events)})));
    EXPECT_FALSE(answered.ok()) << events;
    EXPECT_EQ(answered.code(), kBadAnswerCode);
    EXPECT_NE(answered.message().find(why), std::string::npos) << answered.message();
    EXPECT_EQ(game.full_state(), before);
    EXPECT_EQ(game.state_hash(), hash);
  }
}

TEST(ExternalGame, AnswerThatIsNotAPairIsRefused) {
  ExternalGame game = dealt_game();
  MoveResult refusal = MoveResult::accepted();
  const std::string card = game.view(0)["hand"][0];
  auto call = game.call_for_move(0, {{"action", "play"}, {"value", {card}}}, refusal);
  ASSERT_TRUE(call);
  EXPECT_EQ(game.apply(0, ExternalGame::answered(*call, Json::object())).code(), kBadAnswerCode);
  EXPECT_EQ(
      game.apply(0, ExternalGame::answered(*call, Json::array({{{"no", "phase"}}, Json::array()})))
          .code(),
      kBadAnswerCode);
}

TEST(ExternalGame, EndGameMidTrickClosesThePromptsAndScores) {
  ExternalGame game = dealt_game();
  MoveResult refusal = MoveResult::accepted();
  const std::string card = game.view(0)["hand"][0];
  auto call = game.call_for_move(0, {{"action", "play"}, {"value", {card}}}, refusal);
  ASSERT_TRUE(call);
  const Json hand1 = game.view(1)["hand"];
  const MoveResult result = game.apply(
      0, ExternalGame::answered(
             *call, Json::array({{{"phase", "over"}},
                                 Json::array({{{"type", "prompt_play"},
                                               {"player", "seat1"},
                                               {"to", "pile"},
                                               {"count", 1},
                                               {"from", hand1}},
                                              {{"type", "end_game"},
                                               {"scores", {{"seat0", 3}, {"seat1", 5}}}}})})));
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_TRUE(game.finished());
  EXPECT_TRUE(game.to_act().empty());
  EXPECT_FALSE(game.waiting_call());
  EXPECT_EQ(game.result()["winners"], Json::array({1}));
}

TEST(ExternalGame, AnEngineThatNeverPromptsIsStopped) {
  ExternalGame game("fake", two_player_config(), 1);
  ASSERT_TRUE(game.apply(kEngineSeat, {{"call", "init"}, {"answer", init_answer()}}).ok());
  MoveResult last = MoveResult::accepted();
  int calls = 0;
  for (; calls < 200 && last.ok(); ++calls) {
    last = game.apply(kEngineSeat, next_move(nullptr, Json::array()));
  }
  EXPECT_FALSE(last.ok());
  EXPECT_EQ(calls, 16 + 52 + 1) << "sixteen calls beyond one per card of the deck";
  EXPECT_NE(last.message().find("opened no prompt in 68 calls"), std::string::npos)
      << last.message();
}

// A player who cannot play draws one card per call until one fits (Crazy Eights): the whole
// stock drawn that way is progress, not an engine that never prompts.
TEST(ExternalGame, APlayerMayDrawTheWholeStockOneCallAtATime) {
  ExternalGame game("fake", two_player_config(), 3);
  ASSERT_TRUE(game.apply(kEngineSeat, {{"call", "init"}, {"answer", init_answer()}}).ok());
  for (int drawn = 0; drawn < 52; ++drawn) {
    const MoveResult result = game.apply(
        kEngineSeat,
        next_move(nullptr,
                  Json::array({{{"type", "draw"}, {"player", "seat0"}, {"count", 1}},
                               {{"type", "set_info"}, {"id", "stock"}, {"value", 51 - drawn}}})));
    ASSERT_TRUE(result.ok()) << "draw " << drawn + 1 << ": " << result.message();
  }
  EXPECT_EQ(game.view(0)["hand"].size(), 52U);
  const Json hand = game.view(0)["hand"];
  EXPECT_TRUE(
      game.apply(kEngineSeat, next_move(nullptr, Json::array({prompt_play("seat0", hand)}))).ok());
  EXPECT_EQ(game.to_act(), std::vector<Seat>{0});
}

}  // namespace
}  // namespace parlor::external
