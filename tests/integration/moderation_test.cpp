// Hosts and moderators over real sockets: the creator's remove_seat and lock_room /
// unlock_room (refusals answered with a precise code and nothing changed; restored after a
// restart), per-player mute, and the admin API over HTTP (its token, its actions, its audit
// lines, its drain on the real parlor-server).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "server/server_state.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_fixture.h"
#include "tests/support/server_process.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kAdminToken = "s3cret-admin-token-of-the-tests";

// The room's summary as list_rooms shows it (public rooms), or null.
Json listed(TestClient& client, const std::string& room) {
  const Json rooms = client.request({{"type", "list_rooms"}});
  for (const Json& summary : rooms.value("rooms", Json::array())) {
    if (summary.value("room", "") == room) return summary;
  }
  return nullptr;
}

// The latest `room` push of `room` among the frames `client` has not read yet (next() hands
// out the held-back ones first), waiting until none comes for 300 ms.
Json latest_room_push(TestClient& client, const std::string& room) {
  Json latest;
  while (auto frame = client.next(300ms)) {
    if (frame->value("type", "") == "room" && frame->value("room", "") == room) latest = *frame;
  }
  return latest;
}

class ModerationTest : public ::testing::Test {
 protected:
  ServerFixture server_;

  std::string create(TestClient& host, Json options = Json::object()) {
    const Json reply = host.request(
        {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 4}, {"options", options}});
    EXPECT_EQ(reply["type"], "room_created") << reply;
    return reply.value("room", "");
  }
};

TEST_F(ModerationTest, TheHostRemovesABotAndAPlayerWhoIsTold) {
  auto alice = server_.player("alice");
  auto bob = server_.player("bob");
  const std::string room = create(*alice);
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
  ASSERT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 2}})["type"], "ok");

  ASSERT_EQ(alice->request({{"type", "remove_seat"}, {"room", room}, {"seat", 2}})["type"], "ok");
  EXPECT_TRUE(listed(*alice, room)["seats"][2].is_null());

  const Json removed = alice->request({{"type", "remove_seat"}, {"room", room}, {"seat", 1}});
  ASSERT_EQ(removed["type"], "ok") << removed;
  const auto told = bob->next_of("seat_removed");
  ASSERT_TRUE(told);
  EXPECT_EQ((*told)["room"], room);
  EXPECT_EQ((*told)["seat"], 1);
  EXPECT_FALSE((*told)["reason"].get<std::string>().empty());
  const Json summary = listed(*alice, room);
  EXPECT_TRUE(summary["seats"][1].is_null()) << summary;
  EXPECT_FALSE(summary["seats"][0].is_null()) << summary;
  // No longer a member: the room is not bob's any more.
  EXPECT_EQ(bob->request({{"type", "chat"}, {"room", room}, {"text", "hi"}})["code"], "not_seated");
  // A ghost (a player whose connection is gone) is removed the same way.
  auto carol = server_.player("carol");
  ASSERT_EQ(carol->request({{"type", "join_room"}, {"room", room}, {"seat", 3}})["type"], "joined");
  carol->drop();
  ASSERT_EQ(alice->request({{"type", "remove_seat"}, {"room", room}, {"seat", 3}})["type"], "ok");
  EXPECT_TRUE(listed(*alice, room)["seats"][3].is_null());
}

// The host starts the game (and deals each rematch, the same request) for everyone; another
// seated player's start is refused with the request's `re` and the room keeps waiting. Once
// the host has left the table, any seated player may start.
TEST_F(ModerationTest, OnlyTheSeatedHostStartsTheGame) {
  auto alice = server_.player("alice");
  auto bob = server_.player("bob");
  const std::string room = create(*alice);
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
  ASSERT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 2}})["type"], "ok");
  ASSERT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 3}})["type"], "ok");

  const Json refused = bob->request({{"type", "start"}, {"room", room}});
  EXPECT_EQ(refused["type"], "error") << refused;
  EXPECT_EQ(refused["code"], "not_allowed") << refused;
  EXPECT_TRUE(refused.contains("re")) << refused;
  EXPECT_NE(refused["message"].get<std::string>().find("alice"), std::string::npos) << refused;
  EXPECT_EQ(listed(*alice, room)["status"], "waiting");

  ASSERT_EQ(alice->request({{"type", "start"}, {"room", room}})["type"], "ok");
  EXPECT_EQ(listed(*alice, room)["status"], "playing");

  // A second room whose host leaves before the start: the seated guest may start it.
  const std::string second = create(*alice);
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", second}, {"seat", 1}})["type"], "joined");
  ASSERT_EQ(alice->request({{"type", "leave_room"}, {"room", second}})["type"], "left");
  for (int seat : {0, 2, 3}) {
    ASSERT_EQ(bob->request({{"type", "add_bot"}, {"room", second}, {"seat", seat}})["type"], "ok");
  }
  const Json started = bob->request({{"type", "start"}, {"room", second}});
  EXPECT_EQ(started["type"], "ok") << started;
}

TEST_F(ModerationTest, RefusedHostRequestsAnswerAPreciseCodeAndChangeNothing) {
  auto alice = server_.player("alice");
  auto bob = server_.player("bob");
  const std::string room = create(*alice);
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
  ASSERT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 2}})["type"], "ok");
  const Json before = listed(*alice, room);
  ASSERT_FALSE(before.is_null());

  struct Case {
    TestClient* who;
    Json request;
    std::string code;
  };
  const std::vector<Case> cases = {
      {bob.get(), {{"type", "remove_seat"}, {"room", room}, {"seat", 2}}, "not_allowed"},
      {bob.get(), {{"type", "lock_room"}, {"room", room}}, "not_allowed"},
      {bob.get(), {{"type", "unlock_room"}, {"room", room}}, "not_allowed"},
      {alice.get(), {{"type", "remove_seat"}, {"room", room}, {"seat", 3}}, "seat_empty"},
      {alice.get(), {{"type", "remove_seat"}, {"room", room}, {"seat", 0}}, "not_allowed"},
      {alice.get(), {{"type", "remove_seat"}, {"room", room}, {"seat", 5}}, "bad_request"},
      {alice.get(), {{"type", "remove_seat"}, {"room", room}, {"seat", -1}}, "bad_request"},
      {alice.get(), {{"type", "remove_seat"}, {"room", room}}, "bad_request"},
      {alice.get(), {{"type", "lock_room"}}, "bad_request"},
      {alice.get(), {{"type", "remove_seat"}, {"room", "nope"}, {"seat", 1}}, "no_such_room"},
      {alice.get(), {{"type", "lock_room"}, {"room", "nope"}}, "no_such_room"},
  };
  for (const Case& c : cases) {
    const Json reply = c.who->request(c.request);
    EXPECT_EQ(reply.value("type", ""), "error") << c.request << " -> " << reply;
    EXPECT_EQ(reply.value("code", ""), c.code) << c.request << " -> " << reply;
    EXPECT_FALSE(reply.value("message", "").empty()) << reply;
  }
  EXPECT_EQ(listed(*alice, room), before);
  EXPECT_EQ(bob->request({{"type", "ping"}})["type"], "pong") << "the connection stays open";

  // Once the game is on, the setup is fixed.
  ASSERT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 3}})["type"], "ok");
  ASSERT_EQ(alice->request({{"type", "start"}, {"room", room}})["type"], "ok");
  const Json playing = listed(*alice, room);
  for (const Json& request : {Json{{"type", "remove_seat"}, {"room", room}, {"seat", 1}},
                              Json{{"type", "lock_room"}, {"room", room}}}) {
    EXPECT_EQ(alice->request(request)["code"], "already_started") << request;
  }
  const Json after = listed(*alice, room);
  EXPECT_EQ(after["seats"], playing["seats"]);
  EXPECT_FALSE(after.contains("locked"));
}

TEST_F(ModerationTest, ALockedRoomSeatsNobodyNewUntilUnlocked) {
  auto alice = server_.player("alice");
  auto bob = server_.player("bob");
  auto carol = server_.player("carol");
  const std::string room = create(*alice);
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
  ASSERT_EQ(alice->request({{"type", "lock_room"}, {"room", room}})["type"], "ok");
  EXPECT_EQ(latest_room_push(*bob, room).value("locked", false), true);
  EXPECT_EQ(listed(*carol, room).value("locked", false), true);

  const Json refused = carol->request({{"type", "join_room"}, {"room", room}});
  EXPECT_EQ(refused["code"], "room_locked") << refused;
  EXPECT_EQ(carol->request({{"type", "join_room"}, {"room", room}, {"seat", 2}})["code"],
            "room_locked");
  EXPECT_TRUE(listed(*alice, room)["seats"][2].is_null());
  // Who already sits there keeps their seat; watching stays open.
  EXPECT_EQ(bob->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  EXPECT_EQ(carol->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  // Locking twice is as asked: ok, and still locked.
  EXPECT_EQ(alice->request({{"type", "lock_room"}, {"room", room}})["type"], "ok");

  ASSERT_EQ(alice->request({{"type", "unlock_room"}, {"room", room}})["type"], "ok");
  EXPECT_FALSE(listed(*alice, room).contains("locked"));
  EXPECT_EQ(carol->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
}

TEST(ModerationRecoveryTest, ARestartedServerKeepsTheRemovalAndTheLock) {
  const fs::path dir = scratch_dir("moderation_test", "moderation-recovery");
  auto config = ServerFixture::test_config();
  config.store = "sqlite";
  config.data_dir = dir.string();
  std::string room;
  std::string alice_token;
  {
    ServerFixture server(config);
    auto alice = server.connect();
    alice_token = alice->hello("alice")["token"].get<std::string>();
    auto bob = server.player("bob");
    room = alice->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 4}})["room"]
               .get<std::string>();
    ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
    ASSERT_EQ(alice->request({{"type", "add_bot"}, {"room", room}, {"seat", 2}})["type"], "ok");
    ASSERT_EQ(alice->request({{"type", "remove_seat"}, {"room", room}, {"seat", 1}})["type"], "ok");
    ASSERT_EQ(alice->request({{"type", "lock_room"}, {"room", room}})["type"], "ok");
  }
  ServerFixture restarted(config);
  auto alice = restarted.connect();
  alice->send({{"type", "hello"}, {"token", alice_token}, {"protocol", 1}});
  ASSERT_TRUE(alice->next_of("welcome"));
  const auto pushed = alice->next_of("room");
  ASSERT_TRUE(pushed);
  EXPECT_EQ((*pushed)["room"], room);
  EXPECT_EQ((*pushed)["locked"], true) << *pushed;
  EXPECT_TRUE((*pushed)["seats"][1].is_null()) << *pushed;
  EXPECT_TRUE((*pushed)["seats"][2]["bot"].get<bool>()) << *pushed;
  auto carol = restarted.player("carol");
  EXPECT_EQ(carol->request({{"type", "join_room"}, {"room", room}})["code"], "room_locked");
  // The host still holds the room after the restart.
  EXPECT_EQ(alice->request({{"type", "unlock_room"}, {"room", room}})["type"], "ok");
  EXPECT_EQ(carol->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
}

TEST_F(ModerationTest, AMutedPlayersChatNoLongerReachesWhoMutedThem) {
  auto alice = server_.player("alice");
  auto bob = server_.connect();
  const std::string bob_id = bob->hello("bob")["player"];
  auto carol = server_.connect();
  const std::string carol_id = carol->hello("carol")["player"];
  const std::string room = create(*alice);
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  ASSERT_EQ(carol->request({{"type", "join_room"}, {"room", room}})["type"], "joined");

  EXPECT_EQ(carol->request({{"type", "mute"}, {"player", bob_id}})["type"], "ok");
  EXPECT_EQ(bob->request({{"type", "chat"}, {"room", room}, {"text", "muted line"}})["type"], "ok");
  EXPECT_EQ(alice->request({{"type", "chat"}, {"room", room}, {"text", "heard line"}})["type"],
            "ok");
  // Carol's next chat is alice's: bob's, sent before it, never came.
  const auto heard = carol->next_of("chat");
  ASSERT_TRUE(heard);
  EXPECT_EQ((*heard)["text"], "heard line");
  for (const std::string& frame : carol->frames()) {
    EXPECT_EQ(frame.find("muted line"), std::string::npos) << frame;
  }
  // Alice muted nobody: she gets both.
  const auto first = alice->next_of("chat");
  ASSERT_TRUE(first);
  EXPECT_EQ((*first)["text"], "muted line");

  // The history a returning member gets leaves the muted player's lines out too.
  ASSERT_EQ(carol->request({{"type", "leave_room"}, {"room", room}})["type"], "left");
  ASSERT_EQ(carol->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  const auto history = carol->next_of("chat_history");
  ASSERT_TRUE(history);
  ASSERT_EQ((*history)["messages"].size(), 1u) << *history;
  EXPECT_EQ((*history)["messages"][0]["text"], "heard line");

  EXPECT_EQ(carol->request({{"type", "unmute"}, {"player", bob_id}})["type"], "ok");
  EXPECT_EQ(bob->request({{"type", "chat"}, {"room", room}, {"text", "back again"}})["type"], "ok");
  const auto back = carol->next_of("chat");
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)["text"], "back again");

  // Refused: muting oneself, an unknown player, no player at all.
  EXPECT_EQ(carol->request({{"type", "mute"}, {"player", carol_id}})["code"], "not_allowed");
  EXPECT_EQ(carol->request({{"type", "mute"}, {"player", "nobody"}})["code"], "no_such_player");
  EXPECT_EQ(carol->request({{"type", "unmute"}, {"player", "nobody"}})["code"], "no_such_player");
  EXPECT_EQ(carol->request({{"type", "mute"}})["code"], "bad_request");
}

// ---- the admin API -------------------------------------------------------------------------

// One HTTP request to the admin API; returns the whole answer (status line, headers, body).
std::string admin_call(unsigned short port, const std::string& method, const std::string& target,
                       const std::string& token = kAdminToken) {
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n";
  if (!token.empty()) request += "Authorization: Bearer " + token + "\r\n";
  request += "Content-Length: 0\r\nConnection: close\r\n\r\n";
  return http_exchange(port, request);
}

int status_of(const std::string& answer) {
  const auto space = answer.find(' ');
  return space == std::string::npos ? 0 : std::stoi(answer.substr(space + 1, 3));
}

Json body_of(const std::string& answer) {
  const auto start = answer.find("\r\n\r\n");
  if (start == std::string::npos) return nullptr;
  return Json::parse(answer.substr(start + 4), nullptr, /*allow_exceptions=*/false);
}

server::ServerConfig admin_config() {
  auto config = ServerFixture::test_config();
  config.admin_token = kAdminToken;
  return config;
}

TEST(AdminApiTest, WithoutATokenFileTheApiIsAbsent) {
  ServerFixture server;
  EXPECT_EQ(status_of(admin_call(server.port(), "GET", "/api/admin/rooms")), 404);
  EXPECT_EQ(status_of(admin_call(server.port(), "POST", "/api/admin/drain")), 405)
      << "as any other path that only GET serves";
}

TEST(AdminApiTest, AMissingOrWrongTokenIsRefused) {
  ServerFixture server(admin_config());
  for (const std::string& token : {std::string(), std::string("wrong"),
                                   std::string(kAdminToken) + "x", std::string("s3cret")}) {
    const std::string answer = admin_call(server.port(), "GET", "/api/admin/rooms", token);
    EXPECT_EQ(status_of(answer), 401) << answer;
    EXPECT_EQ(body_of(answer).value("error", ""), "unauthorized") << answer;
    EXPECT_EQ(answer.find(kAdminToken), std::string::npos);
  }
  // Not even a drain happens without the token.
  EXPECT_EQ(status_of(admin_call(server.port(), "POST", "/api/admin/drain", "wrong")), 401);
  EXPECT_FALSE(server.server().state().shutting_down());
  EXPECT_EQ(status_of(admin_call(server.port(), "GET", "/api/admin/nothing")), 404);
  EXPECT_EQ(status_of(admin_call(server.port(), "POST", "/api/admin/rooms")), 405);
  EXPECT_EQ(status_of(admin_call(server.port(), "GET", "/api/admin/drain")), 405);
}

TEST(AdminApiTest, ListsEveryRoomAndClosesOne) {
  auto config = admin_config();
  config.max_rooms_per_player = 1;
  ServerFixture server(config);
  auto alice = server.player("alice");
  auto bob = server.player("bob");
  const std::string hidden = alice->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"private", true}}}})["room"];
  ASSERT_EQ(bob->request({{"type", "watch_room"}, {"room", hidden}})["type"], "watching");

  const std::string listing = admin_call(server.port(), "GET", "/api/admin/rooms");
  ASSERT_EQ(status_of(listing), 200) << listing;
  const Json rooms = body_of(listing)["rooms"];
  ASSERT_EQ(rooms.size(), 1u) << listing;
  EXPECT_EQ(rooms[0]["room"], hidden);
  EXPECT_EQ(rooms[0]["private"], true);
  EXPECT_EQ(rooms[0]["seats"][0]["name"], "alice");
  EXPECT_EQ(rooms[0]["spectators"], 1);

  EXPECT_EQ(status_of(admin_call(server.port(), "POST", "/api/admin/rooms/nope/close")), 404);
  const std::string closed =
      admin_call(server.port(), "POST", "/api/admin/rooms/" + hidden + "/close");
  ASSERT_EQ(status_of(closed), 200) << closed;
  for (TestClient* member : {alice.get(), bob.get()}) {
    const auto told = member->next_of("room_closed");
    ASSERT_TRUE(told);
    EXPECT_EQ((*told)["room"], hidden);
    EXPECT_FALSE((*told)["reason"].get<std::string>().empty());
  }
  EXPECT_EQ(alice->request({{"type", "join_room"}, {"room", hidden}})["code"], "no_such_room");
  EXPECT_TRUE(body_of(admin_call(server.port(), "GET", "/api/admin/rooms"))["rooms"].empty());
  // The room no longer counts against its creator's limit of unfinished rooms.
  EXPECT_EQ(alice->request({{"type", "create_room"}, {"kind", "bigtwo"}})["type"], "room_created");
}

TEST(AdminApiTest, KickClosesAConnectionAndBanRefusesTheTokenFromThenOn) {
  ServerFixture server(admin_config());
  auto bob = server.connect();
  const Json welcome = bob->hello("bob");
  const std::string bob_id = welcome["player"];
  const std::string bob_token = welcome["token"];

  const std::string kicked =
      admin_call(server.port(), "POST", "/api/admin/players/" + bob_id + "/kick");
  ASSERT_EQ(status_of(kicked), 200) << kicked;
  EXPECT_EQ(body_of(kicked)["was_connected"], true);
  ASSERT_TRUE(bob->wait_closed());
  EXPECT_EQ(bob->close_code(), 4001) << bob->close_reason();
  // A kick is not a ban: the token still resumes.
  auto again = server.connect();
  again->send({{"type", "hello"}, {"token", bob_token}, {"protocol", 1}});
  const auto resumed = again->next_of("welcome");
  ASSERT_TRUE(resumed);

  const std::string banned =
      admin_call(server.port(), "POST", "/api/admin/players/" + bob_id + "/ban");
  ASSERT_EQ(status_of(banned), 200) << banned;
  ASSERT_TRUE(again->wait_closed());
  EXPECT_EQ(again->close_code(), 4002) << again->close_reason();
  auto refused = server.connect();
  const Json answer = refused->request({{"type", "hello"}, {"token", bob_token}, {"protocol", 1}});
  EXPECT_EQ(answer["code"], "banned") << answer;
  EXPECT_EQ(refused->request({{"type", "ping"}})["code"], "hello_required");

  EXPECT_EQ(status_of(admin_call(server.port(), "POST", "/api/admin/players/nobody/kick")), 404);
  EXPECT_EQ(status_of(admin_call(server.port(), "POST", "/api/admin/players/nobody/ban")), 404);
}

// The drain of the real parlor-server, from the admin API as from SIGTERM: 202, the
// connections closed (1001: a single server without --drain-ms), exit 0; and the audit lines
// say who did what, never with the token.
TEST(AdminApiTest, DrainStopsTheServerAsSigtermDoesAndEveryActionIsAudited) {
  const fs::path dir = scratch_dir("moderation_test", "admin-drain");
  {
    std::ofstream token(dir / "admin-token");
    token << "  " << kAdminToken << "\n";
  }
  ServerProcess single(PARLOR_SERVER_BINARY,
                       {"--store", "none", "--static-dir", dir.string(), "--log-format", "json",
                        "--admin-token-file", (dir / "admin-token").string()},
                       dir / "logs", "admin");
  ASSERT_EQ(single.start(), "");
  TestClient player("127.0.0.1", single.port());
  ASSERT_EQ(player.hello("dave")["type"], "welcome");
  ASSERT_EQ(status_of(admin_call(single.port(), "POST", "/api/admin/players/nobody/kick")), 404);
  ASSERT_EQ(status_of(admin_call(single.port(), "GET", "/api/admin/rooms", "wrong")), 401);

  const std::string drained = admin_call(single.port(), "POST", "/api/admin/drain");
  EXPECT_EQ(status_of(drained), 202) << drained;
  ASSERT_TRUE(player.wait_closed(5s)) << tail_of(single.log(), 20);
  EXPECT_EQ(player.close_code(), 1001) << player.close_reason();
  EXPECT_EQ(single.wait_exit(10s), "exit status 0") << tail_of(single.log(), 20);

  std::ifstream in(single.log());
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(log.find(kAdminToken), std::string::npos) << "the token was logged";
  int actions = 0;
  int refusals = 0;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const Json entry = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!entry.is_object()) continue;
    const std::string event = entry.value("event", "");
    const std::string message = entry.value("message", "");
    if (event == "admin_action") {
      ++actions;
      EXPECT_NE(message.find("127.0.0.1"), std::string::npos) << line;
    }
    if (event == "admin_refused") ++refusals;
  }
  EXPECT_EQ(actions, 2) << "the kick of nobody and the drain:\n" << tail_of(single.log(), 20);
  EXPECT_EQ(refusals, 1) << tail_of(single.log(), 20);
}

}  // namespace
}  // namespace parlor::testing
