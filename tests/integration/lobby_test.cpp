// The lobby over a real WebSocket: identity, rooms, seats, spectators, chat, and every
// lobby error code.
#include <gtest/gtest.h>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

class LobbyTest : public ::testing::Test {
 protected:
  ServerFixture server_;

  std::string create(TestClient& client, const std::string& kind = "bigtwo", int seats = 4,
                     Json options = Json::object()) {
    const Json reply = client.request(
        {{"type", "create_room"}, {"kind", kind}, {"seats", seats}, {"options", options}});
    EXPECT_EQ(reply["type"], "room_created") << reply.dump();
    return reply.value("room", "");
  }
};

TEST_F(LobbyTest, HelloIssuesPlayerAndSecretToken) {
  auto client = server_.connect();
  const Json welcome = client->hello("alice");
  EXPECT_EQ(welcome["type"], "welcome");
  EXPECT_EQ(welcome["protocol"], 1);
  EXPECT_FALSE(welcome["player"].get<std::string>().empty());
  EXPECT_GE(welcome["token"].get<std::string>().size(), 32U) << "128 bits, hex";
}

TEST_F(LobbyTest, EverythingBeforeHelloIsRefused) {
  auto client = server_.connect();
  EXPECT_EQ(client->request({{"type", "list_games"}})["code"], "hello_required");
  EXPECT_EQ(client->request({{"type", "hello"}, {"name", "bob"}, {"protocol", 2}})["code"],
            "unsupported_protocol");
  EXPECT_EQ(client->request({{"type", "hello"}, {"token", "00ff"}, {"protocol", 1}})["code"],
            "invalid_token");
  EXPECT_EQ(client->hello("bob")["type"], "welcome");
  EXPECT_EQ(client->request({{"type", "ping"}})["type"], "pong");
}

TEST_F(LobbyTest, ListGamesShowsOptionsAndVariants) {
  auto client = server_.player("alice");
  const Json games = client->request({{"type", "list_games"}});
  ASSERT_EQ(games["type"], "games");
  bool found = false;
  for (const Json& game : games["games"]) {
    if (game["kind"] != "bigtwo") continue;
    found = true;
    EXPECT_EQ(game["min_seats"], 2);
    EXPECT_EQ(game["max_seats"], 4);
    EXPECT_TRUE(game["options"].contains("suit_order"));
    EXPECT_TRUE(game["options"].contains("straights"));
  }
  EXPECT_TRUE(found);
}

TEST_F(LobbyTest, CreateJoinWatchChatLeave) {
  auto alice = server_.player("alice");
  auto bob = server_.player("bob");
  auto carol = server_.player("carol");
  const std::string room = create(*alice, "bigtwo", 2);
  auto push = alice->next_of("room");
  ASSERT_TRUE(push);
  EXPECT_EQ((*push)["you"], 0);
  EXPECT_EQ((*push)["status"], "waiting");
  EXPECT_EQ((*push)["seats"][0]["name"], "alice");
  EXPECT_TRUE((*push)["seats"][1].is_null());

  const Json rooms = bob->request({{"type", "list_rooms"}});
  ASSERT_EQ(rooms["type"], "rooms");
  bool listed = false;
  for (const Json& r : rooms["rooms"]) listed = listed || r["room"] == room;
  EXPECT_TRUE(listed);

  const Json joined = bob->request({{"type", "join_room"}, {"room", room}});
  EXPECT_EQ(joined["type"], "joined");
  EXPECT_EQ(joined["seat"], 1);
  auto bob_push = bob->next_of("room");
  ASSERT_TRUE(bob_push);
  EXPECT_EQ((*bob_push)["you"], 1);

  EXPECT_EQ(carol->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  auto carol_push = carol->next_of("room");
  ASSERT_TRUE(carol_push);
  EXPECT_TRUE((*carol_push)["you"].is_null());
  EXPECT_EQ((*carol_push)["spectators"], 1);

  EXPECT_EQ(carol->request({{"type", "chat"}, {"room", room}, {"text", "hi all"}})["type"], "ok");
  for (TestClient* c : {alice.get(), bob.get(), carol.get()}) {
    auto chat = c->next_of("chat");
    ASSERT_TRUE(chat);
    EXPECT_EQ((*chat)["text"], "hi all");
    EXPECT_EQ((*chat)["name"], "carol");
  }
  EXPECT_EQ(bob->request({{"type", "leave_room"}, {"room", room}})["type"], "left");
  auto after = alice->next_of("room");
  ASSERT_TRUE(after);
  // The leave push is the latest one; earlier pushes may still be queued.
  while (auto more = alice->next_of("room", std::chrono::milliseconds(200))) after = more;
  EXPECT_TRUE((*after)["seats"][1].is_null());
}

TEST_F(LobbyTest, LobbyErrorCodes) {
  auto alice = server_.player("alice");
  auto bob = server_.player("bob");
  auto carol = server_.player("carol");
  auto code = [](const Json& reply) { return reply.value("code", reply.dump()); };

  EXPECT_EQ(code(alice->request({{"type", "create_room"}, {"kind", "chess"}})), "unknown_game");
  EXPECT_EQ(code(alice->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 9}})),
            "bad_options");
  EXPECT_EQ(
      code(alice->request(
          {{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"suit_order", "nope"}}}})),
      "bad_options");
  EXPECT_EQ(code(alice->request({{"type", "join_room"}, {"room", "nope"}})), "no_such_room");

  const std::string room = create(*alice, "bigtwo", 2);
  EXPECT_EQ(code(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 0}})), "seat_taken");
  EXPECT_EQ(code(bob->request({{"type", "start"}, {"room", room}})), "not_seated");
  EXPECT_EQ(
      code(alice->request({{"type", "move"}, {"room", room}, {"move", {{"action", "pass"}}}})),
      "not_started");
  EXPECT_EQ(bob->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  EXPECT_EQ(code(carol->request({{"type", "join_room"}, {"room", room}})), "room_full");
  EXPECT_EQ(
      code(carol->request({{"type", "move"}, {"room", room}, {"move", {{"action", "pass"}}}})),
      "not_seated");
  EXPECT_EQ(alice->request({{"type", "start"}, {"room", room}})["type"], "ok");
  EXPECT_EQ(code(bob->request({{"type", "start"}, {"room", room}})), "already_started");
  EXPECT_EQ(code(carol->request({{"type", "join_room"}, {"room", room}})), "already_started");
}

TEST_F(LobbyTest, SeedOptionNeedsDevMode) {
  auto config = ServerFixture::test_config();
  config.dev = false;
  ServerFixture production(config);
  auto alice = production.player("alice");
  const Json reply =
      alice->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"seed", 7}}}});
  EXPECT_EQ(reply["code"], "bad_options");
  EXPECT_NE(reply["message"].get<std::string>().find("--dev"), std::string::npos);
}

TEST_F(LobbyTest, TooManyRooms) {
  auto config = ServerFixture::test_config();
  config.max_rooms_per_player = 2;
  ServerFixture limited(config);
  auto alice = limited.player("alice");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(alice->request({{"type", "create_room"}, {"kind", "bigtwo"}})["type"],
              "room_created");
  }
  EXPECT_EQ(alice->request({{"type", "create_room"}, {"kind", "bigtwo"}})["code"],
            "too_many_rooms");
}

TEST_F(LobbyTest, PrivateRoomsAreNotListed) {
  auto alice = server_.player("alice");
  const std::string room = create(*alice, "bigtwo", 2, {{"private", true}});
  const Json rooms = alice->request({{"type", "list_rooms"}});
  for (const Json& r : rooms["rooms"]) EXPECT_NE(r["room"], room);
  auto bob = server_.player("bob");
  EXPECT_EQ(bob->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
}

TEST_F(LobbyTest, SecondConnectionReplacesTheFirst) {
  auto first = server_.connect();
  const Json welcome = first->hello("alice");
  auto second = server_.connect();
  const Json again =
      second->request({{"type", "hello"}, {"token", welcome["token"]}, {"protocol", 1}});
  EXPECT_EQ(again["type"], "welcome");
  EXPECT_EQ(again["player"], welcome["player"]);
  ASSERT_TRUE(first->wait_closed());
  EXPECT_EQ(first->close_code(), 4000);
  EXPECT_NE(first->close_reason().find("newer connection"), std::string::npos);
}

}  // namespace
}  // namespace parlor::testing
