// Whole games over real WebSockets, with the leak scan on every frame, reconnects,
// spectators and the move error codes.
#include <gtest/gtest.h>

#include <iostream>

#include "games/core/rng.h"
#include "games/registry.h"
#include "games/testing/self_play.h"
#include "tests/support/game_driver.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

struct Table {
  std::string room;
  std::vector<std::unique_ptr<TestClient>> players;
  std::unique_ptr<Game> mirror;
  std::int64_t seq = 0;
};

// Creates a seeded room of `seats` players (plus whatever the caller adds), starts it and
// reads every player's first state push.
Table start_table(const ServerFixture& server, const std::string& kind, int seats,
                  std::uint64_t seed, Json options = Json::object(),
                  std::vector<TestClient*> spectators = {}) {
  Table table;
  for (int s = 0; s < seats; ++s) table.players.push_back(server.player("p" + std::to_string(s)));
  Json room_options = options;
  room_options["seed"] = seed;
  const Json created = table.players[0]->request(
      {{"type", "create_room"}, {"kind", kind}, {"seats", seats}, {"options", room_options}});
  EXPECT_EQ(created["type"], "room_created") << created.dump();
  table.room = created.value("room", "");
  for (int s = 1; s < seats; ++s) {
    const Json joined = table.players[static_cast<std::size_t>(s)]->request(
        {{"type", "join_room"}, {"room", table.room}, {"seat", s}});
    EXPECT_EQ(joined["type"], "joined") << joined.dump();
  }
  for (TestClient* spectator : spectators) {
    EXPECT_EQ(spectator->request({{"type", "watch_room"}, {"room", table.room}})["type"],
              "watching");
  }
  EXPECT_EQ(table.players[0]->request({{"type", "start"}, {"room", table.room}})["type"], "ok");
  std::string error;
  table.mirror = create_game(*find_game(kind), options, seats, seed, nullptr, error);
  EXPECT_TRUE(table.mirror) << error;
  for (auto& p : table.players) {
    auto state = p->next_of("state");
    EXPECT_TRUE(state);
    if (state) {
      EXPECT_EQ((*state)["seq"], 0);
      EXPECT_EQ(scan_frame(*state, *table.mirror, static_cast<Seat>(&p - &table.players[0])), "");
    }
  }
  for (TestClient* spectator : spectators) {
    auto state = spectator->next_of("state");
    EXPECT_TRUE(state);
    if (state) {
      EXPECT_FALSE((*state)["view"].contains("hand"));
    }
  }
  return table;
}

std::vector<TestClient*> raw(const Table& table) {
  std::vector<TestClient*> out;
  for (const auto& p : table.players) out.push_back(p.get());
  return out;
}

// Every frame every client ever received, scanned once more with the final mirror is not
// meaningful (hands change), so the driver scans each frame as it arrives; here we only
// check that nothing but the owner ever saw the token.
void expect_token_private(const std::vector<TestClient*>& clients, const std::string& token,
                          const TestClient* owner) {
  for (const TestClient* client : clients) {
    if (client == owner) continue;
    for (const std::string& frame : client->frames()) {
      EXPECT_EQ(frame.find(token), std::string::npos) << "token leaked: " << frame;
    }
  }
}

class PlayTest : public ::testing::Test {
 protected:
  ServerFixture server_;
};

TEST_F(PlayTest, FullBigTwoGameWithLeakScanAndSpectator) {
  const std::uint64_t seed = test_seed(20261122);
  std::cout << "seed " << seed << "\n";
  auto spectator = server_.player("watcher");
  Table table = start_table(server_, "bigtwo", 4, seed, Json::object(), {spectator.get()});
  DriveResult result =
      drive_game(raw(table), {spectator.get()}, table.room, *table.mirror, 0, seed);
  ASSERT_EQ(result.failure, "");
  EXPECT_TRUE(result.finished);
  EXPECT_GT(result.moves, 10);
  ASSERT_TRUE(result.game_over.contains("result"));
  EXPECT_EQ(result.game_over["result"]["scores"].size(), 4U);
  EXPECT_FALSE(result.game_over["result"]["winners"].empty());
  // The spectator got every state push and never a hand.
  for (const std::string& frame : spectator->frames()) {
    const Json parsed = Json::parse(frame);
    if (parsed["type"] == "state") {
      EXPECT_FALSE(parsed["view"].contains("hand"));
    }
  }
  // Rematch: `start` on a finished room deals again and seq keeps increasing.
  EXPECT_EQ(table.players[0]->request({{"type", "start"}, {"room", table.room}})["type"], "ok");
  auto state = table.players[0]->next_of("state");
  ASSERT_TRUE(state);
  EXPECT_EQ((*state)["seq"], result.last_seq + 1);
}

// Every game through the server: four (or the game's default) seats and a spectator play a
// seeded game to game_over, every frame scanned for other seats' cards.
struct KindCase {
  std::string kind;
  int seats;
  Json options;
};

class EveryGameTest : public ::testing::TestWithParam<KindCase> {
 protected:
  ServerFixture server_;
};

TEST_P(EveryGameTest, PlaysToGameOverWithoutLeaks) {
  const KindCase& param = GetParam();
  const std::uint64_t seed = test_seed(7);
  std::cout << param.kind << " seed " << seed << "\n";
  auto spectator = server_.player("watcher");
  Table table =
      start_table(server_, param.kind, param.seats, seed, param.options, {spectator.get()});
  DriveResult result =
      drive_game(raw(table), {spectator.get()}, table.room, *table.mirror, 0, seed);
  ASSERT_EQ(result.failure, "");
  EXPECT_TRUE(result.finished);
  ASSERT_TRUE(result.game_over.contains("result"));
  EXPECT_EQ(result.game_over["result"]["scores"].size(), static_cast<std::size_t>(param.seats));
  EXPECT_EQ(result.game_over["result"], table.mirror->result());
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryGameTest,
                         ::testing::Values(KindCase{"spades", 4, {{"target", 200}}},
                                           KindCase{"bidwhist", 4, {}},
                                           KindCase{"agram", 4, {{"target", 2}}},
                                           KindCase{"agram", 5, {}}, KindCase{"splendor", 3, {}},
                                           KindCase{"bigtwo", 3, {{"deals", 2}}}),
                         [](const ::testing::TestParamInfo<KindCase>& test) {
                           return test.param.kind + std::to_string(test.param.seats);
                         });

TEST_F(PlayTest, MoveErrorCodes) {
  Table table = start_table(server_, "bigtwo", 4, 11);
  Game& mirror = *table.mirror;
  const Seat first = mirror.to_act().front();
  const Seat other = (first + 1) % 4;
  auto& mover = *table.players[static_cast<std::size_t>(first)];
  auto& waiter = *table.players[static_cast<std::size_t>(other)];
  auto move = [&](TestClient& c, Json m, std::optional<std::int64_t> seq = std::nullopt) {
    Json request = {{"type", "move"}, {"room", table.room}, {"move", std::move(m)}};
    if (seq) request["seq"] = *seq;
    return c.request(request);
  };
  const Json legal = mirror.legal_moves(first);
  EXPECT_EQ(move(waiter, legal[0])["code"], "not_your_turn");
  // A card the mover does not hold: one from the waiter's hand.
  const std::string foreign = mirror.view(other)["hand"][0];
  const Json refused = move(mover, {{"action", "play"}, {"cards", {foreign}}});
  EXPECT_EQ(refused["code"], "card_not_held");
  EXPECT_NE(refused["message"].get<std::string>().find(foreign), std::string::npos);
  EXPECT_EQ(move(mover, {{"action", "pass"}})["code"], "cannot_pass");
  EXPECT_EQ(move(mover, {{"action", "fly"}})["code"], "illegal_move");
  EXPECT_EQ(move(mover, legal[0], 5)["code"], "stale_state");
  // Nothing changed: the legal move is still accepted at seq 0.
  const Json ok = move(mover, legal[0], 0);
  EXPECT_EQ(ok["type"], "ok") << ok.dump();
  EXPECT_EQ(ok["seq"], 1);
  EXPECT_EQ(move(mover, legal[0], 0)["code"], "stale_state");
}

TEST_F(PlayTest, ReconnectMidGameResumesSeatAndHand) {
  const std::uint64_t seed = test_seed(99);
  Table table = start_table(server_, "bigtwo", 4, seed);
  DriveResult part = drive_game(raw(table), {}, table.room, *table.mirror, 0, seed, 8);
  ASSERT_EQ(part.failure, "");
  // Seat 2 drops its TCP connection and comes back with its token.
  const Json welcome_token = [&] {
    // The token is in the first frame seat 2 ever got.
    return Json::parse(table.players[2]->frames().front());
  }();
  ASSERT_EQ(welcome_token["type"], "welcome");
  table.players[2]->drop();
  auto watcher = table.players[0].get();
  auto flag = watcher->next_of("room");
  while (flag && (*flag)["seats"][2]["connected"] == true) flag = watcher->next_of("room");
  ASSERT_TRUE(flag) << "the others see seat 2 disconnected";
  EXPECT_EQ((*flag)["seats"][2]["connected"], false);

  auto back = server_.connect();
  const Json welcome =
      back->request({{"type", "hello"}, {"token", welcome_token["token"]}, {"protocol", 1}});
  EXPECT_EQ(welcome["player"], welcome_token["player"]);
  auto room = back->next_of("room");
  ASSERT_TRUE(room);
  EXPECT_EQ((*room)["you"], 2);
  auto state = back->next_of("state");
  ASSERT_TRUE(state);
  EXPECT_EQ((*state)["seq"], part.last_seq);
  EXPECT_EQ((*state)["view"]["hand"], table.mirror->view(2)["hand"]);
  EXPECT_EQ(scan_frame(*state, *table.mirror, 2), "");

  // Play on to the end with the new connection.
  table.players[2] = std::move(back);
  for (auto& p : table.players) p->pending().clear();
  DriveResult rest = drive_game(raw(table), {}, table.room, *table.mirror, part.last_seq, seed + 1);
  ASSERT_EQ(rest.failure, "");
  EXPECT_TRUE(rest.finished);
  expect_token_private(raw(table), welcome_token["token"], table.players[2].get());
}

TEST_F(PlayTest, MoveAfterGameOverIsRefused) {
  Table table = start_table(server_, "bigtwo", 2, 5);
  DriveResult result = drive_game(raw(table), {}, table.room, *table.mirror, 0, 5);
  ASSERT_EQ(result.failure, "");
  const Json reply = table.players[0]->request(
      {{"type", "move"}, {"room", table.room}, {"move", {{"action", "pass"}}}});
  EXPECT_EQ(reply["code"], "game_over");
}

TEST_F(PlayTest, BotsFillSeatsAndPlayToTheEnd) {
  auto alice = server_.player("alice");
  const Json created = alice->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}, {"options", {{"seed", 3}}}});
  const std::string room = created["room"];
  EXPECT_EQ(alice->request(
                {{"type", "add_bot"}, {"room", room}, {"seat", 1}, {"strategy", "nope"}})["code"],
            "unknown_strategy");
  EXPECT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 1}})["type"], "ok");
  EXPECT_EQ(alice->request({{"type", "start"}, {"room", room}})["type"], "ok");
  std::string error;
  auto mirror = create_game(*find_game("bigtwo"), Json::object(), 2, 3, nullptr, error);
  Rng rng(3);
  // Alice plays randomly from her prompts; the bot answers on its own.
  for (int i = 0; i < 400; ++i) {
    auto frame = alice->next(std::chrono::seconds(10));
    ASSERT_TRUE(frame);
    if ((*frame)["type"] == "game_over") return;  // success
    if ((*frame)["type"] != "state" || !(*frame)["prompt"].is_object()) continue;
    const Json& legal = (*frame)["prompt"]["legal"];
    Json request = {{"type", "move"}, {"room", room}, {"seq", (*frame)["seq"]}};
    request["move"] = legal[rng.uniform(legal.size())];
    alice->send(request);
  }
  FAIL() << "the game with a bot did not end";
}

// What one turn sends one client leaves in one write: each accepted move's `ok` and the
// mover's state push share a socket write (parlor_socket_writes_total against
// parlor_frames_out_total). One I/O thread, so a session's frames of a turn are all queued
// before it writes.
TEST(Batching, AMovesOkAndStateLeaveInOneWrite) {
  auto config = ServerFixture::test_config();
  config.threads = 1;
  ServerFixture server(config);
  Table table = start_table(server, "bigtwo", 2, 5);
  const auto counter = [&](const std::string& name) {
    const std::string text = http_get(server.port(), "/metrics");
    const auto at = text.find("\n" + name + " ");
    EXPECT_NE(at, std::string::npos) << name;
    return at == std::string::npos ? 0.0 : std::stod(text.substr(at + name.size() + 2));
  };
  const double frames_before = counter("parlor_frames_out_total");
  const double writes_before = counter("parlor_socket_writes_total");
  const DriveResult result = drive_game(raw(table), {}, table.room, *table.mirror, 0, 5);
  ASSERT_EQ(result.failure, "");
  ASSERT_GT(result.moves, 10);
  const double frames = counter("parlor_frames_out_total") - frames_before;
  const double writes = counter("parlor_socket_writes_total") - writes_before;
  // Per move: ok + state to the mover in one write, state to the other player in another.
  EXPECT_GE(frames, 3.0 * result.moves);
  EXPECT_LE(writes, frames - result.moves)
      << frames << " frames in " << writes << " writes for " << result.moves << " moves";
}

}  // namespace
}  // namespace parlor::testing
