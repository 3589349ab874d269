// Quick play over a real WebSocket: players who ask for the same table are seated together
// and the game starts; a player alone gets bots after the wait; standings are pushed; bad
// requests are refused with a code and `re`, and leave nobody queued who was not.
#include <gtest/gtest.h>

#include <set>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

using namespace std::chrono_literals;

server::ServerConfig bots_after(std::chrono::seconds wait) {
  server::ServerConfig config = ServerFixture::test_config();
  config.quick_play_bots_after = wait;
  return config;
}

// The next quick_play push with this status.
Json next_quick_play(TestClient& client, const std::string& status,
                     std::chrono::milliseconds limit = 3s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const auto frame = client.next_of("quick_play", 200ms);
    if (frame && frame->value("status", "") == status) return *frame;
  }
  return Json();
}

TEST(QuickPlay, TwoPlayersAskingForTheSameTableAreSeatedTogetherAndPlay) {
  ServerFixture server(bots_after(0s));
  auto alice = server.player("alice");
  auto bob = server.player("bob");
  const Json first = alice->request({{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 2}});
  ASSERT_EQ(first["type"], "quick_play") << first;
  EXPECT_EQ(first["status"], "waiting");
  EXPECT_EQ(first["position"], 1);
  EXPECT_EQ(first["waiting"], 1);
  EXPECT_EQ(first["estimate_ms"], 0) << "no bots: no promise of when";
  const Json second = bob->request({{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 2}});
  EXPECT_EQ(second["position"], 2);

  const Json seated_a = next_quick_play(*alice, "seated");
  const Json seated_b = next_quick_play(*bob, "seated");
  ASSERT_TRUE(seated_a.is_object() && seated_b.is_object()) << "no table within 3 s";
  EXPECT_EQ(seated_a["room"], seated_b["room"]);
  EXPECT_EQ(seated_a["seat"], 0);
  EXPECT_EQ(seated_b["seat"], 1);
  // The game is dealt: each gets its own state push for the table.
  const auto state = alice->next_of("state", 3s);
  ASSERT_TRUE(state) << "the game did not start";
  EXPECT_EQ((*state)["room"], seated_a["room"]);
  // A seated player cannot queue again until the table is finished.
  const Json again = alice->request({{"type", "quick_play"}, {"kind", "spades"}});
  EXPECT_EQ(again["code"], "already_seated") << again;
}

TEST(QuickPlay, APlayerAloneIsSeatedWithBotsAfterTheWait) {
  ServerFixture server(bots_after(1s));
  auto carol = server.player("carol");
  const auto asked = std::chrono::steady_clock::now();
  const Json waiting = carol->request({{"type", "quick_play"}, {"kind", "spades"}});
  EXPECT_EQ(waiting["seats"], 4) << "the game's default seat count";
  EXPECT_GT(waiting["estimate_ms"].get<int>(), 0);
  EXPECT_LE(waiting["estimate_ms"].get<int>(), 1000);
  const Json seated = next_quick_play(*carol, "seated", 4s);
  ASSERT_TRUE(seated.is_object()) << "no table with bots";
  const auto waited = std::chrono::steady_clock::now() - asked;
  EXPECT_GE(waited, 1s);
  EXPECT_LE(waited, 2500ms) << "the wait plus a tick or two";
  // The room fills seat by seat: its pushes end with three bots beside carol.
  int bots = 0;
  Json room;
  while (bots < 3) {
    const auto push = carol->next_of("room", 3s);
    if (!push) break;
    room = *push;
    bots = 0;
    for (const Json& seat : room["seats"]) bots += seat.is_object() && seat.value("bot", false);
  }
  EXPECT_EQ(bots, 3) << room;
  const auto state = carol->next_of("state", 3s);
  ASSERT_TRUE(state) << "the game did not start";
}

TEST(QuickPlay, StandingsArePushedAndCancellingLeavesTheQueue) {
  ServerFixture server(bots_after(0s));
  auto a = server.player("a");
  auto b = server.player("b");
  auto c = server.player("c");
  for (auto* client : {a.get(), b.get(), c.get()}) {
    ASSERT_EQ(client->request({{"type", "quick_play"}, {"kind", "spades"}})["status"], "waiting");
  }
  // a learns that three wait now.
  Json standing = Json::object();
  for (int i = 0; i < 10 && standing.value("waiting", 0) != 3; ++i) {
    if (Json pushed = next_quick_play(*a, "waiting", 1s); pushed.is_object()) standing = pushed;
  }
  EXPECT_EQ(standing.value("waiting", 0), 3) << standing;
  EXPECT_EQ(standing.value("position", 0), 1);

  EXPECT_EQ(a->request({{"type", "cancel_quick_play"}})["type"], "ok");
  EXPECT_EQ(a->request({{"type", "cancel_quick_play"}})["code"], "not_queued");
  // c moves up to second of two.
  for (int i = 0; i < 10 && standing.value("waiting", 0) != 2; ++i) {
    if (Json pushed = next_quick_play(*c, "waiting", 1s); pushed.is_object()) standing = pushed;
  }
  EXPECT_EQ(standing.value("waiting", 0), 2) << standing;
  EXPECT_EQ(standing.value("position", 0), 2);

  // A player who disconnects leaves the queue: d and b make no table of three with him.
  c.reset();
  auto d = server.player("d");
  auto e = server.player("e");
  d->request({{"type", "quick_play"}, {"kind", "spades"}});
  e->request({{"type", "quick_play"}, {"kind", "spades"}});
  EXPECT_TRUE(next_quick_play(*b, "seated", 1500ms).is_null()) << "seated with a gone player";
}

TEST(QuickPlay, BadRequestsAreRefusedWithTheirReAndQueueNobody) {
  ServerFixture server(bots_after(0s));
  auto alice = server.player("alice");
  const std::vector<std::pair<Json, std::string>> refused = {
      {{{"type", "quick_play"}, {"kind", "nosuchgame"}}, "unknown_game"},
      {{{"type", "quick_play"}}, "bad_request"},
      {{{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 9}}, "bad_options"},
      {{{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", "4"}}, "bad_request"},
      {{{"type", "quick_play"}, {"kind", "bigtwo"}, {"options", {{"private", true}}}},
       "bad_options"},
      {{{"type", "quick_play"}, {"kind", "bigtwo"}, {"options", {{"nosuch", 1}}}}, "bad_options"},
      {{{"type", "quick_play"}, {"kind", "bigtwo"}, {"options", {{"seed", 4}}}}, "bad_options"},
      {{{"type", "cancel_quick_play"}}, "not_queued"},
  };
  for (const auto& [request, code] : refused) {
    const Json reply = alice->request(request);
    EXPECT_EQ(reply["code"], code) << request << " -> " << reply;
    EXPECT_TRUE(reply.contains("re")) << reply;
  }
  EXPECT_EQ(alice->request({{"type", "cancel_quick_play"}})["code"], "not_queued")
      << "a refused request queued the player";

  ASSERT_EQ(alice->request({{"type", "quick_play"}, {"kind", "bigtwo"}})["status"], "waiting");
  const Json twice = alice->request({{"type", "quick_play"}, {"kind", "spades"}});
  EXPECT_EQ(twice["code"], "already_queued") << twice;
  EXPECT_EQ(alice->request({{"type", "cancel_quick_play"}})["type"], "ok")
      << "the first request still stands";

  auto host = server.player("host");
  ASSERT_EQ(host->request({{"type", "create_room"}, {"kind", "bigtwo"}})["type"], "room_created");
  const Json seated = host->request({{"type", "quick_play"}, {"kind", "bigtwo"}});
  EXPECT_EQ(seated["code"], "already_seated") << seated;
}

}  // namespace
}  // namespace parlor::testing
