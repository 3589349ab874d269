// External games: rules engines behind HTTP (docs/ENGINES.md) hosted by a real parlor-server.
//
//  - the adapter against a fake engine (tests/support/fake_engine.py, a real HTTP server on
//    loopback) that misbehaves on request: slow, 500s, invalid JSON, events for a player not
//    in the game, a prompt with an empty `from`, a draw beyond the deck, an end_game while
//    a prompt is open, a refusal; a bad /config at start;
//  - a whole game of each example engine (engines/) with the leak scan on every frame;
//  - crash recovery: the real parlor-server SIGKILLed in an external game and restarted,
//    the room rebuilt from its log without asking the engine again.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "bots/strategy.h"
#include "games/core/rng.h"
#include "games/testing/self_play.h"
#include "server/server.h"
#include "tests/support/game_driver.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_fixture.h"
#include "tests/support/server_process.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path test_dir(const std::string& name) { return scratch_dir("engine-test", name); }

// A Python engine as a child process on a free loopback port.
class EngineProcess {
 public:
  explicit EngineProcess(const std::string& script, std::vector<std::string> flags = {})
      : process_(fs::path(PARLOR_SOURCE_DIR) / script, std::move(flags), test_dir("engines"),
                 fs::path(script).parent_path().filename().string()) {
    const std::string error = process_.start(0);
    if (!error.empty()) throw std::runtime_error(script + ": " + error);
  }
  unsigned short port() const { return process_.port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  ServerProcess& process() { return process_; }

 private:
  ServerProcess process_;
};

Json http_json(unsigned short port, const std::string& method, const std::string& target,
               const std::string& body = "") {
  const std::string response = http_exchange(
      port, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n\r\n" + body);
  const auto start = response.find("\r\n\r\n");
  return Json::parse(response.substr(start == std::string::npos ? 0 : start + 4));
}

void inject(const EngineProcess& engine, const std::string& kind, int count = 1) {
  http_json(engine.port(), "POST", "/fault", Json{{"kind", kind}, {"count", count}}.dump());
}

int next_calls(const EngineProcess& engine) {
  return http_json(engine.port(), "GET", "/calls")["next"].get<int>();
}

server::ServerConfig config_with(const std::string& name, const std::string& url) {
  auto config = ServerFixture::test_config();
  config.engines = {{name, url}};
  config.engine_timeout = 500ms;
  return config;
}

// Reads `client`'s frames until a state push in which someone is to act or a game_over;
// returns it.
std::optional<Json> next_decision(TestClient& client, const std::string& room) {
  while (auto frame = client.next(10s)) {
    const std::string type = frame->value("type", "");
    if (type == "game_over") return frame;
    if (type == "state" && (*frame)["room"] == room && !(*frame)["to_act"].empty()) return frame;
  }
  return std::nullopt;
}

// Reads frames of `seat`'s client until a state push that prompts it, or a game_over.
std::optional<Json> prompt_for(TestClient& client, const std::string& room, Seat seat) {
  while (auto frame = next_decision(client, room)) {
    if ((*frame)["type"] == "game_over") return frame;
    const Json& to_act = (*frame)["to_act"];
    if (std::find(to_act.begin(), to_act.end(), seat) != to_act.end()) return frame;
  }
  return std::nullopt;
}

// Reads `client`'s frames until its state push at `seq`.
std::optional<Json> state_at(TestClient& client, std::int64_t seq) {
  while (auto frame = client.next(10s)) {
    if (frame->value("type", "") == "state" && (*frame)["seq"] == seq) return frame;
  }
  return std::nullopt;
}

// Reads frames until a room push with `status`.
bool room_status_seen(TestClient& client, const std::string& status,
                      std::chrono::milliseconds timeout = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto frame = client.next(500ms);
    if (frame && frame->value("type", "") == "room" && (*frame)["status"] == status) return true;
  }
  return false;
}

struct Players {
  std::string room;
  std::vector<std::unique_ptr<TestClient>> seats;
};

Players seat_players(const ServerFixture& server, const std::string& kind, int seats,
                     std::uint64_t seed, TestClient* spectator = nullptr) {
  Players out;
  for (int s = 0; s < seats; ++s) out.seats.push_back(server.player("p" + std::to_string(s)));
  const Json created = out.seats[0]->request(
      {{"type", "create_room"}, {"kind", kind}, {"seats", seats}, {"options", {{"seed", seed}}}});
  EXPECT_EQ(created["type"], "room_created") << created.dump();
  out.room = created.value("room", "");
  for (int s = 1; s < seats; ++s) {
    EXPECT_EQ(out.seats[static_cast<std::size_t>(s)]->request(
                  {{"type", "join_room"}, {"room", out.room}, {"seat", s}})["type"],
              "joined");
  }
  if (spectator) {
    EXPECT_EQ(spectator->request({{"type", "watch_room"}, {"room", out.room}})["type"], "watching");
  }
  return out;
}

// ---- the adapter against a misbehaving engine ---------------------------------------------

class FakeEngineTest : public ::testing::Test {
 protected:
  EngineProcess engine_{"tests/support/fake_engine.py"};
  ServerFixture server_{config_with("fake", engine_.url())};

  // A started two-player room of the fake game at seat 0's first prompt.
  Players started(std::uint64_t seed = 11) {
    Players table = seat_players(server_, "fake", 2, seed);
    EXPECT_EQ(table.seats[0]->request({{"type", "start"}, {"room", table.room}})["type"], "ok");
    return table;
  }
  // The next state push to `seat` that prompts it; fails the test when none comes.
  Json decision(Players& table, std::size_t seat) {
    auto frame = prompt_for(*table.seats[seat], table.room, static_cast<Seat>(seat));
    EXPECT_TRUE(frame && (*frame)["type"] == "state") << "no prompt for seat " << seat;
    return frame ? *frame : Json();
  }
  Json play(Players& table, std::size_t seat, const std::string& card, std::int64_t seq) {
    return table.seats[seat]->request({{"type", "move"},
                                       {"room", table.room},
                                       {"seq", seq},
                                       {"move", {{"action", "play"}, {"value", {card}}}}});
  }
};

TEST_F(FakeEngineTest, TheGameIsListedWithItsSeats) {
  const Json games = server_.player("x")->request({{"type", "list_games"}});
  bool found = false;
  for (const Json& game : games["games"]) {
    if (game["kind"] != "fake") continue;
    found = true;
    EXPECT_EQ(game["min_seats"], 2);
    EXPECT_EQ(game["max_seats"], 2);
  }
  EXPECT_TRUE(found) << games.dump();
  EXPECT_NE(http_get(server_.port(), "/api/games").find("\"fake\""), std::string::npos);
}

TEST_F(FakeEngineTest, PlaysToTheEndAndChecksMovesBeforeAskingTheEngine) {
  Players table = started();
  Json state = decision(table, 0);
  ASSERT_EQ(state["to_act"], Json::array({0}));
  const Json hand = state["view"]["hand"];
  ASSERT_EQ(hand.size(), 3U);
  EXPECT_EQ(state["prompt"]["legal"].size(), 3U);
  const auto seq = state["seq"].get<std::int64_t>();

  const int calls = next_calls(engine_);
  // Not seat 1's prompt; a card seat 0 does not hold; a malformed answer; the wrong shape.
  Json other_state = *state_at(*table.seats[1], seq);
  EXPECT_FALSE(other_state["view"].contains("hand") &&
               other_state["view"]["hand"] == hand);  // seat 1 sees its own hand only
  EXPECT_EQ(play(table, 1, other_state["view"]["hand"][0], seq)["code"], "not_your_turn");
  EXPECT_EQ(play(table, 0, other_state["view"]["hand"][0], seq)["code"], "card_not_held");
  const Json two = table.seats[0]->request(
      {{"type", "move"}, {"room", table.room}, {"move", {{"action", "play"}, {"value", hand}}}});
  EXPECT_EQ(two["code"], "illegal_move");
  const Json shape = table.seats[0]->request(
      {{"type", "move"}, {"room", table.room}, {"move", {{"action", "bid"}, {"value", 3}}}});
  EXPECT_EQ(shape["code"], "bad_request");
  EXPECT_TRUE(shape.contains("re"));
  EXPECT_EQ(next_calls(engine_), calls) << "the engine was asked about a move that cannot fit";

  // Four plays end the game; each ok comes with the seq of the applied answer.
  std::size_t seat = 0;
  for (int plays = 0; plays < 4; ++plays) {
    const Json ok = play(table, seat, state["view"]["hand"][0], state["seq"].get<std::int64_t>());
    ASSERT_EQ(ok["type"], "ok") << ok.dump();
    EXPECT_EQ(ok["seq"], state["seq"].get<std::int64_t>() + 1);
    seat = 1 - seat;
    if (plays < 3) state = decision(table, seat);
  }
  auto over = table.seats[0]->next_of("game_over", 10s);
  ASSERT_TRUE(over);
  EXPECT_EQ((*over)["result"]["scores"], Json::array({2, 2}));
}

// Each failure of a player's move: the player gets engine_unavailable, every member sees
// the room paused, nothing changed; once the engine answers the room plays on.
TEST_F(FakeEngineTest, AFailingAnswerPausesTheRoomUntilTheEngineAnswersAgain) {
  for (const std::string fault :
       {"slow", "status500", "invalid_json", "unknown_player", "empty_from", "overdraw"}) {
    SCOPED_TRACE(fault);
    Players table = started();
    const Json state = decision(table, 0);
    const std::string card = state["view"]["hand"][0];
    const auto seq = state["seq"].get<std::int64_t>();
    inject(engine_, fault);
    const Json refused = play(table, 0, card, seq);
    EXPECT_EQ(refused["type"], "error");
    EXPECT_EQ(refused["code"], "engine_unavailable") << refused.dump();
    EXPECT_TRUE(room_status_seen(*table.seats[1], "paused"));
    EXPECT_TRUE(room_status_seen(*table.seats[1], "playing"));
    // Nothing was applied: the same move at the same seq is accepted now.
    const Json ok = play(table, 0, card, seq);
    EXPECT_EQ(ok["type"], "ok") << ok.dump();
    EXPECT_EQ(ok["seq"], seq + 1);
  }
}

TEST_F(FakeEngineTest, ACallTheServerMakesItselfIsRetriedUntilItIsAnswered) {
  // The deal (a next call with a null action) fails twice; the room waits, then deals.
  inject(engine_, "status500", 2);
  Players table = started();
  EXPECT_TRUE(room_status_seen(*table.seats[0], "paused"));
  const Json state = decision(table, 0);
  EXPECT_EQ(state["view"]["hand"].size(), 3U);
  EXPECT_EQ(state["to_act"], Json::array({0}));
}

TEST_F(FakeEngineTest, TheEnginesRefusalReachesThePlayerAndChangesNothing) {
  Players table = started();
  const Json state = decision(table, 0);
  const auto seq = state["seq"].get<std::int64_t>();
  inject(engine_, "refuse");
  const Json refused = play(table, 0, state["view"]["hand"][1], seq);
  EXPECT_EQ(refused["code"], "bad_answer");
  EXPECT_EQ(refused["message"], "not that card");
  EXPECT_EQ(play(table, 0, state["view"]["hand"][1], seq)["type"], "ok");
}

TEST_F(FakeEngineTest, EndGameWhileAPromptIsOpenEndsTheGame) {
  Players table = started();
  const Json state = decision(table, 0);
  inject(engine_, "end_mid_trick");
  EXPECT_EQ(play(table, 0, state["view"]["hand"][0], state["seq"].get<std::int64_t>())["type"],
            "ok");
  auto over = table.seats[1]->next_of("game_over", 10s);
  ASSERT_TRUE(over);
  EXPECT_EQ((*over)["result"]["scores"], Json::array({7, 3}));
  EXPECT_EQ((*over)["result"]["winners"], Json::array({0}));
}

TEST_F(FakeEngineTest, HostedBotsPlayExternalGames) {
  auto human = server_.player("human");
  const Json created = human->request(
      {{"type", "create_room"}, {"kind", "fake"}, {"seats", 2}, {"options", {{"seed", 5}}}});
  const std::string room = created["room"];
  EXPECT_EQ(human->request(
                {{"type", "add_bot"}, {"room", room}, {"seat", 1}, {"strategy", "random"}})["type"],
            "ok");
  EXPECT_EQ(human->request({{"type", "start"}, {"room", room}})["type"], "ok");
  while (true) {
    auto frame = next_decision(*human, room);
    ASSERT_TRUE(frame);
    if ((*frame)["type"] == "game_over") break;
    if ((*frame)["to_act"] != Json::array({0})) continue;
    const Json ok = human->request(
        {{"type", "move"}, {"room", room}, {"move", (*frame)["prompt"]["legal"][0]}});
    ASSERT_EQ(ok["type"], "ok") << ok.dump();
  }
}

// Two seats prompted at once answer at once: one engine call is in flight at a time, the
// other answer waits its turn, and both are acknowledged.
TEST_F(FakeEngineTest, AnswersOfSeveralPromptedSeatsWaitForEachOther) {
  inject(engine_, "together");
  Players table = started();
  const Json zero = decision(table, 0);
  ASSERT_EQ(zero["to_act"], Json::array({0, 1}));
  const Json one = *state_at(*table.seats[1], zero["seq"].get<std::int64_t>());
  EXPECT_EQ(one["prompt"]["name"], "ready");
  for (std::size_t s = 0; s < 2; ++s) {
    table.seats[s]->send({{"type", "move"},
                          {"id", 100 + static_cast<int>(s)},
                          {"room", table.room},
                          {"move", {{"action", "select"}, {"value", {"ready"}}}}});
  }
  std::set<std::int64_t> acknowledged;
  for (std::size_t s = 0; s < 2; ++s) {
    auto ok = table.seats[s]->next_of("ok", 10s);
    ASSERT_TRUE(ok) << "seat " << s;
    acknowledged.insert((*ok)["seq"].get<std::int64_t>());
  }
  const auto seq = zero["seq"].get<std::int64_t>();
  EXPECT_EQ(acknowledged, (std::set<std::int64_t>{seq + 1, seq + 2}));
  // The state once both answers are in (the one between may still prompt seat 0 to select,
  // when seat 1's answer went to the engine first).
  const auto play = state_at(*table.seats[0], seq + 2);
  ASSERT_TRUE(play);
  EXPECT_EQ((*play)["prompt"]["actions"], Json::array({"play"})) << play->dump();
}

TEST_F(FakeEngineTest, TheTurnClockAnswersThroughTheEngine) {
  std::vector<std::unique_ptr<TestClient>> seats;
  for (int s = 0; s < 2; ++s) seats.push_back(server_.player("c" + std::to_string(s)));
  const Json created = seats[0]->request({{"type", "create_room"},
                                          {"kind", "fake"},
                                          {"seats", 2},
                                          {"options", {{"seed", 3}, {"turn_seconds", 1}}}});
  const std::string room = created["room"];
  ASSERT_EQ(seats[1]->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"],
            "joined");
  ASSERT_EQ(seats[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  // Seat 0 never answers: the clock does, through the engine, and seat 1 is prompted.
  auto next = prompt_for(*seats[1], room, 1);
  ASSERT_TRUE(next);
  bool timed_out = false;
  for (const Json& event : (*next)["events"]) {
    timed_out |= event == Json{{"type", "timeout"}, {"seat", 0}};
  }
  EXPECT_TRUE(timed_out) << next->dump();
  EXPECT_EQ((*next)["view"]["stacks"][0]["cards"].size(), 1U);
}

TEST(EngineStart, ABadConfigStopsTheServerNamingTheEngine) {
  EngineProcess bad("tests/support/fake_engine.py", {"--bad-config"});
  server::Server server(config_with("broken", bad.url()));
  try {
    server.start();
    FAIL() << "the server started with a bad engine config";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("engine broken"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("config.deck"), std::string::npos) << e.what();
  }
  server::Server unreachable(config_with("gone", "http://127.0.0.1:1"));
  try {
    unreachable.start();
    FAIL() << "the server started without its engine";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("engine gone"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/config"), std::string::npos) << e.what();
  }
}

// ---- whole games of the example engines, every frame scanned -----------------------------

struct ExampleCase {
  std::string kind;
  std::string script;
  std::vector<std::string> state_keys;  // keys of the engine's state no frame may carry
  int min_deals = 0;                    // shuffle events the game must see
};

// The test's name shows the engine, not the case's bytes.
void PrintTo(const ExampleCase& c, std::ostream* os) { *os << c.kind; }

class ExampleEngineTest : public ::testing::TestWithParam<ExampleCase> {};

void collect_keys(const Json& value, std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      out.insert(key);
      collect_keys(item, out);
    }
  } else if (value.is_array()) {
    for (const Json& item : value) collect_keys(item, out);
  }
}

TEST_P(ExampleEngineTest, PlaysAWholeGameWithoutLeaks) {
  const ExampleCase& c = GetParam();
  EngineProcess engine(c.script, {"--base", "/api/v1/game"});
  ServerFixture server(config_with(c.kind, engine.url() + "/api/v1/game"));
  const std::uint64_t seed = test_seed(20261126);
  auto spectator = server.player("watcher");
  Players table = seat_players(server, c.kind, 4, seed, spectator.get());
  ASSERT_EQ(table.seats[0]->request({{"type", "start"}, {"room", table.room}})["type"], "ok");

  Rng rng(seed);
  int moves = 0;
  Json game_over;
  while (moves < 2000) {
    auto decision = next_decision(*table.seats[0], table.room);
    ASSERT_TRUE(decision) << "no decision after " << moves << " moves";
    if ((*decision)["type"] == "game_over") {
      game_over = *decision;
      break;
    }
    const auto seq = (*decision)["seq"].get<std::int64_t>();
    const Seat seat = (*decision)["to_act"][0].get<Seat>();
    // Seat 0's client has just read this push; another seat's reads up to it.
    auto mine = seat == 0 ? decision : state_at(*table.seats[static_cast<std::size_t>(seat)], seq);
    ASSERT_TRUE(mine);
    // Bids pass when they may, so that contracts stay low and the game runs over several
    // deals (each a shuffle of every card back into the deck).
    const Json& prompt = (*mine)["prompt"];
    Json move = bots::random_move(prompt, rng);
    if (prompt.value("name", "") == "bid") {
      move = prompt["legal"][0];
      for (const Json& option : prompt["legal"]) {
        if (option["value"] == Json::array({"pass"})) move = option;
      }
    }
    const Json ok = table.seats[static_cast<std::size_t>(seat)]->request(
        {{"type", "move"}, {"room", table.room}, {"seq", seq}, {"move", move}}, 10s);
    ASSERT_EQ(ok["type"], "ok") << move.dump() << " " << ok.dump();
    ++moves;
  }
  ASSERT_TRUE(game_over.is_object()) << "no game_over after " << moves << " moves";
  EXPECT_EQ(game_over["result"]["scores"].size(), 4U);
  for (std::size_t s = 1; s < table.seats.size(); ++s) {
    ASSERT_TRUE(table.seats[s]->next_of("game_over", 10s));  // seat 0's was read above
  }
  ASSERT_TRUE(spectator->next_of("game_over", 10s));

  // Every seat's hand at every seq, from its own state pushes (every member gets each one).
  std::map<std::int64_t, std::map<Seat, std::vector<std::string>>> hands;
  for (std::size_t s = 0; s < table.seats.size(); ++s) {
    for (const std::string& text : table.seats[s]->frames()) {
      const Json frame = Json::parse(text);
      if (frame.value("type", "") != "state") continue;
      ASSERT_TRUE(frame["view"].contains("hand"));
      hands[frame["seq"].get<std::int64_t>()][static_cast<Seat>(s)] =
          frame["view"]["hand"].get<std::vector<std::string>>();
    }
  }
  ASSERT_GT(hands.size(), 10U);
  auto scan_client = [&](const TestClient& client, Seat viewer) {
    std::int64_t seq = 0;
    int scanned = 0;
    for (const std::string& text : client.frames()) {
      const Json frame = Json::parse(text);
      if (frame.value("type", "") == "state") seq = frame["seq"].get<std::int64_t>();
      std::vector<std::string> hidden;
      for (const auto& [seat, hand] : hands[seq]) {
        if (seat != viewer) hidden.insert(hidden.end(), hand.begin(), hand.end());
      }
      ASSERT_EQ(scan_frame(frame, hidden, viewer), "");
      std::set<std::string> keys;
      collect_keys(frame, keys);
      for (const std::string& key : c.state_keys) {
        ASSERT_FALSE(keys.contains(key)) << "the engine's state reached a client: " << text;
      }
      ++scanned;
    }
    EXPECT_GT(scanned, 10);
  };
  for (std::size_t s = 0; s < table.seats.size(); ++s) {
    scan_client(*table.seats[s], static_cast<Seat>(s));
  }
  scan_client(*spectator, kSpectator);
  int deals = 0;
  for (const std::string& text : table.seats[0]->frames()) {
    const Json frame = Json::parse(text);
    if (frame.value("type", "") != "state") continue;
    for (const Json& event : frame["events"]) deals += event.value("type", "") == "deal";
  }
  EXPECT_GE(deals, c.min_deals);
  std::cout << c.kind << ": " << moves << " moves, " << hands.size() << " states, " << deals
            << " deals\n";
}

INSTANTIATE_TEST_SUITE_P(Engines, ExampleEngineTest,
                         ::testing::Values(ExampleCase{"crazy-eights",
                                                       "engines/crazy-eights/server.py",
                                                       {"passes", "called", "top", "turn"},
                                                       0},
                                           ExampleCase{"bidwhist-tamerlane",
                                                       "engines/bidwhist-tamerlane/server.py",
                                                       {"bidder", "leader", "trick", "won", "high"},
                                                       2}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.kind;
                           std::erase(name, '-');
                           return name;
                         });

// ---- crash recovery -----------------------------------------------------------------------

Json hello(TestClient& client, const std::string& name_or_token, bool token) {
  Json message = {{"type", "hello"}, {"protocol", 1}};
  message[token ? "token" : "name"] = name_or_token;
  return client.request(message);
}

TEST(EngineCrashTest, AnExternalRoomComesBackFromItsLogWithoutAskingTheEngine) {
  EngineProcess engine("tests/support/fake_engine.py");
  const fs::path data = test_dir("crash-data");
  fs::remove_all(data);
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "sqlite", "--data-dir", data.string(), "--threads", "2",
                        "--engine", "fake=" + engine.url(), "--engine-timeout-ms", "2000"},
                       test_dir("crash-logs"), "server");
  ASSERT_EQ(server.start(), "");
  const unsigned short port = server.port();

  std::vector<std::unique_ptr<TestClient>> clients;
  std::vector<std::string> tokens;
  for (int s = 0; s < 2; ++s) {
    clients.push_back(std::make_unique<TestClient>("127.0.0.1", port));
    const Json welcome = hello(*clients.back(), "p" + std::to_string(s), false);
    ASSERT_EQ(welcome["type"], "welcome") << welcome.dump();
    tokens.push_back(welcome["token"]);
  }
  const Json created = clients[0]->request(
      {{"type", "create_room"}, {"kind", "fake"}, {"seats", 2}, {"options", {{"seed", 99}}}});
  const std::string room = created["room"];
  ASSERT_EQ(clients[1]->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"],
            "joined");
  ASSERT_EQ(clients[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  auto first = next_decision(*clients[0], room);
  ASSERT_TRUE(first);
  const Json ok = clients[0]->request({{"type", "move"},
                                       {"room", room},
                                       {"seq", (*first)["seq"]},
                                       {"move", (*first)["prompt"]["legal"][0]}});
  ASSERT_EQ(ok["type"], "ok") << ok.dump();
  auto before = prompt_for(*clients[1], room, 1);
  ASSERT_TRUE(before);
  ASSERT_EQ((*before)["to_act"], Json::array({1}));

  ASSERT_EQ(server.kill_now(), "");
  clients.clear();
  const int calls = next_calls(engine);
  ASSERT_EQ(server.start(port), "");

  // Resumed with its token, seat 1 finds the room where the acknowledged moves left it.
  auto back = std::make_unique<TestClient>("127.0.0.1", port);
  ASSERT_EQ(hello(*back, tokens[1], true)["type"], "welcome");
  auto after = state_at(*back, (*before)["seq"].get<std::int64_t>());
  ASSERT_TRUE(after);
  EXPECT_EQ((*after)["view"], (*before)["view"]);
  EXPECT_EQ((*after)["prompt"], (*before)["prompt"]);
  EXPECT_EQ(next_calls(engine), calls) << "recovery asked the engine again";

  // And the game plays on to its end.
  auto seat0 = std::make_unique<TestClient>("127.0.0.1", port);
  ASSERT_EQ(hello(*seat0, tokens[0], true)["type"], "welcome");
  std::vector<TestClient*> seats = {seat0.get(), back.get()};
  Json state = *after;
  Seat seat = 1;
  while (true) {
    const Json played =
        seats[static_cast<std::size_t>(seat)]->request({{"type", "move"},
                                                        {"room", room},
                                                        {"seq", state["seq"]},
                                                        {"move", state["prompt"]["legal"][0]}});
    ASSERT_EQ(played["type"], "ok") << played.dump();
    seat = 1 - seat;
    auto next = prompt_for(*seats[static_cast<std::size_t>(seat)], room, seat);
    ASSERT_TRUE(next);
    if ((*next)["type"] == "game_over") break;
    state = *next;
  }
  // The replay is rebuilt from the log; it shows the players' moves, never the engine's
  // answers or state.
  const Json replay = seat0->request({{"type", "get_replay"}, {"room", room}, {"seat", 0}});
  ASSERT_EQ(replay["type"], "replay") << replay.dump();
  EXPECT_TRUE(replay["finished"]);
  EXPECT_GT(replay["steps"].size(), 4U);
  const std::string text = replay.dump();
  for (const char* hidden : {"\"answer\"", "\"scored\"", "\"plays\":"}) {
    EXPECT_EQ(text.find(hidden), std::string::npos) << hidden << " in " << text;
  }
  server.kill_now();
}

}  // namespace
}  // namespace parlor::testing
