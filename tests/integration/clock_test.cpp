// Server-side seats over the wire: a bot plays a disconnected player's seat after the
// room's grace period and hands it back on return; turn clocks move for a seat that
// runs out of time, and exactly one of a late move and the timeout wins.
#include <gtest/gtest.h>

#include <thread>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

struct Pair {
  std::unique_ptr<TestClient> alice;
  std::unique_ptr<TestClient> bob;
  std::string room;
  Json bob_welcome;
};

Pair start_pair(const ServerFixture& server, Json options) {
  Pair pair;
  pair.alice = server.player("alice");
  pair.bob = server.connect();
  pair.bob_welcome = pair.bob->hello("bob");
  options["seed"] = 21;
  pair.room = pair.alice->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}, {"options", options}})["room"];
  EXPECT_EQ(pair.bob->request({{"type", "join_room"}, {"room", pair.room}})["type"], "joined");
  EXPECT_EQ(pair.alice->request({{"type", "start"}, {"room", pair.room}})["type"], "ok");
  return pair;
}

// The latest state push a client has, waiting up to `timeout` for one with seq >= min_seq.
std::optional<Json> state_at_least(TestClient& client, std::int64_t min_seq,
                                   std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto frame = client.next_of("state", std::chrono::milliseconds(200));
    if (frame && (*frame)["seq"].get<std::int64_t>() >= min_seq) return frame;
  }
  return std::nullopt;
}

TEST(Seats, BotPlaysForAnAbsentPlayerAfterGraceAndHandsBack) {
  ServerFixture server;
  Pair pair = start_pair(server, {{"grace", 1}});
  auto first = pair.alice->next_of("state");
  ASSERT_TRUE(first);
  pair.bob->drop();
  // Alice plays whenever it is her turn; after the grace period Bob's bot answers.
  std::int64_t seq = 0;
  bool saw_bot = false;
  Json state = *first;
  for (int i = 0; i < 200 && seq < 6; ++i) {
    if (state["prompt"].is_object()) {
      Json request = {{"type", "move"}, {"room", pair.room}, {"seq", state["seq"]}};
      request["move"] = state["prompt"]["legal"][0];
      pair.alice->send(request);
    }
    auto frame = pair.alice->next(std::chrono::seconds(5));
    ASSERT_TRUE(frame);
    if ((*frame)["type"] == "room" && (*frame)["seats"][1]["bot"] == true) saw_bot = true;
    if ((*frame)["type"] == "state") {
      state = *frame;
      seq = state["seq"];
    }
    if ((*frame)["type"] == "game_over") break;
  }
  EXPECT_TRUE(saw_bot) << "the room push shows the bot at seat 1";
  EXPECT_GE(seq, 6) << "the game went on without Bob";

  auto back = server.connect();
  EXPECT_EQ(back->request(
                {{"type", "hello"}, {"token", pair.bob_welcome["token"]}, {"protocol", 1}})["type"],
            "welcome");
  auto room = back->next_of("room");
  ASSERT_TRUE(room);
  while (auto later = back->next_of("room", std::chrono::milliseconds(300))) room = later;
  EXPECT_EQ((*room)["seats"][1]["bot"], false) << "Bob has his seat back";
  EXPECT_EQ((*room)["seats"][1]["connected"], true);
  EXPECT_TRUE(back->next_of("state"));
}

TEST(Clock, TimeoutPassesAndALateMoveIsStale) {
  ServerFixture server;
  Pair pair = start_pair(server, {{"turn_seconds", 1}, {"on_timeout", "pass"}});
  // Whoever leads first must play (no pass on a fresh lead), so the timeout plays the
  // first legal move; then the other seat may pass.
  auto first = pair.alice->next_of("state");
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->contains("deadline"));
  EXPECT_GT((*first)["deadline_ms"].get<std::int64_t>(), 500);
  EXPECT_LE((*first)["deadline_ms"].get<std::int64_t>(), 1000);
  auto after = state_at_least(*pair.alice, 1, std::chrono::seconds(4));
  ASSERT_TRUE(after) << "the clock moved for the seat";
  bool timeout_event = false;
  for (const Json& e : (*after)["events"]) timeout_event = timeout_event || e["type"] == "timeout";
  EXPECT_TRUE(timeout_event);
  // A move made on the state before the timeout is refused: exactly one of them wins.
  TestClient& mover = (*first)["to_act"][0] == 0 ? *pair.alice : *pair.bob;
  Json late = {{"type", "move"}, {"room", pair.room}, {"seq", 0}};
  late["move"] = {{"action", "pass"}};
  EXPECT_EQ(mover.request(late)["code"], "stale_state");
  // The next seat's clock runs out too: that one can pass.
  auto second = state_at_least(*pair.alice, 2, std::chrono::seconds(4));
  ASSERT_TRUE(second);
}

TEST(Clock, TimeoutWithBotRule) {
  ServerFixture server;
  Pair pair = start_pair(server, {{"turn_seconds", 1}});
  auto moved = state_at_least(*pair.alice, 2, std::chrono::seconds(5));
  ASSERT_TRUE(moved) << "two turns were played by the on_timeout bot";
}

TEST(Clock, BadRoomOptions) {
  ServerFixture server;
  auto alice = server.player("alice");
  for (const Json& options : {Json{{"turn_seconds", -1}}, Json{{"grace", "soon"}},
                              Json{{"on_timeout", "explode"}}, Json{{"turn_seconds", 1e9}}}) {
    EXPECT_EQ(
        alice->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"options", options}})["code"],
        "bad_options")
        << options.dump();
  }
}

}  // namespace
}  // namespace parlor::testing
