// The lobby push and list_rooms' filters and pages over a real WebSocket: a subscriber's
// snapshot plus the pushes that follow always add up to what list_rooms says, pushes are
// coalesced under churn, and bad requests are refused with a code and `re`, changing nothing.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

using namespace std::chrono_literals;

server::ServerConfig quick_sweep_config() {
  server::ServerConfig config = ServerFixture::test_config();
  config.empty_room_timeout = std::chrono::seconds(1);
  return config;
}

// A subscriber's view of the lobby: the snapshot with every push applied, in order.
class LobbyView {
 public:
  explicit LobbyView(const Json& snapshot) {
    for (const Json& room : snapshot["rooms"]) rooms_[room["room"]] = room;
  }
  // Applies a push; returns false for a frame that is not a lobby push.
  bool apply(const Json& frame) {
    const std::string type = frame.value("type", "");
    if (type == "room_added" || type == "room_changed") {
      for (const Json& room : frame["rooms"]) {
        const bool known = rooms_.contains(room["room"]);
        EXPECT_EQ(known, type == "room_changed") << frame;
        rooms_[room["room"]] = room;
      }
    } else if (type == "room_removed") {
      for (const Json& id : frame["rooms"]) EXPECT_EQ(rooms_.erase(id), 1U) << frame;
    } else {
      return false;
    }
    ++pushes_;
    return true;
  }
  // Reads pushes for `period`.
  void read(TestClient& client, std::chrono::milliseconds period) {
    const auto until = std::chrono::steady_clock::now() + period;
    while (std::chrono::steady_clock::now() < until) {
      if (auto frame = client.next(50ms)) apply(*frame);
    }
  }
  // Reads pushes until `done` holds (true) or `limit` passes (false).
  template <class Done>
  bool read_until(TestClient& client, Done done, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done(*this)) {
      if (std::chrono::steady_clock::now() >= until) return false;
      if (auto frame = client.next(50ms)) apply(*frame);
    }
    return true;
  }
  const std::map<std::string, Json>& rooms() const { return rooms_; }
  int pushes() const { return pushes_; }

 private:
  std::map<std::string, Json> rooms_;
  int pushes_ = 0;
};

std::map<std::string, Json> listed(TestClient& client) {
  std::map<std::string, Json> out;
  const Json reply = client.request({{"type", "list_rooms"}});
  EXPECT_EQ(reply.value("type", ""), "rooms") << reply;
  for (const Json& room : reply["rooms"]) out[room["room"]] = room;
  return out;
}

std::string create(TestClient& client, const std::string& kind, Json options = Json::object()) {
  const Json reply =
      client.request({{"type", "create_room"}, {"kind", kind}, {"options", std::move(options)}});
  EXPECT_EQ(reply["type"], "room_created") << reply;
  return reply.value("room", "");
}

TEST(LobbyPush, SubscribersSeeRoomsOpenFillAndCloseAndAKindSeesOnlyItsOwn) {
  ServerFixture server(quick_sweep_config());
  auto alice = server.player("alice");
  auto carol = server.player("carol");
  auto bob = server.player("bob");
  const Json snapshot = alice->request({{"type", "subscribe_lobby"}});
  ASSERT_EQ(snapshot["type"], "lobby") << snapshot;
  EXPECT_TRUE(snapshot["rooms"].empty());
  LobbyView everything(snapshot);
  const Json spades_snapshot = carol->request({{"type", "subscribe_lobby"}, {"kind", "spades"}});
  ASSERT_EQ(spades_snapshot["kind"], "spades");
  LobbyView spades(spades_snapshot);

  const std::string room = create(*bob, "bigtwo");
  create(*bob, "bigtwo", {{"private", true}});  // never listed
  everything.read(*alice, 1200ms);
  ASSERT_EQ(everything.rooms().size(), 1U);
  EXPECT_EQ(everything.rooms().begin()->first, room);
  EXPECT_EQ(everything.rooms().at(room)["seats"][1], nullptr);

  ASSERT_EQ(bob->request({{"type", "add_bot"}, {"room", room}, {"seat", 1}})["type"], "ok");
  everything.read(*alice, 1200ms);
  EXPECT_EQ(everything.rooms().at(room)["seats"][1]["bot"], true);
  EXPECT_EQ(everything.rooms(), listed(*alice));

  // Bob goes: his rooms are empty, swept after a second, and leave the list.
  bob.reset();
  EXPECT_TRUE(everything.read_until(
      *alice, [](const LobbyView& view) { return view.rooms().empty(); }, 6000ms))
      << "no room_removed";
  EXPECT_EQ(everything.rooms(), listed(*alice));

  spades.read(*carol, 100ms);
  EXPECT_EQ(spades.pushes(), 0) << "a spades subscriber heard of Big Two rooms";
  EXPECT_EQ(carol->request({{"type", "unsubscribe_lobby"}})["type"], "ok");
}

// Forty changes in well under a second reach a subscriber as a few frames, and what they
// add up to is the list.
TEST(LobbyPush, ChurnIsCoalescedAndTheViewMatchesTheList) {
  ServerFixture server;
  auto alice = server.player("alice");
  // Two hosts: a player may hold only a few unfinished rooms.
  std::vector<std::unique_ptr<TestClient>> hosts;
  hosts.push_back(server.player("bob"));
  hosts.push_back(server.player("dave"));
  LobbyView view(alice->request({{"type", "subscribe_lobby"}}));
  const auto began = std::chrono::steady_clock::now();
  for (int r = 0; r < 10; ++r) {
    TestClient& host = *hosts[r % 2];
    const std::string room = create(host, "bigtwo");
    for (int seat = 1; seat < 4; ++seat) {
      ASSERT_EQ(host.request({{"type", "add_bot"}, {"room", room}, {"seat", seat}})["type"], "ok");
    }
  }
  const auto busy = std::chrono::steady_clock::now() - began;
  view.read(*alice, 1500ms);
  EXPECT_EQ(view.rooms().size(), 10U);
  EXPECT_EQ(view.rooms(), listed(*alice));
  // At most three frames (added, changed, removed) per half second of activity, plus the
  // half second still being gathered when it ended.
  const auto intervals = busy / 500ms + 2;
  EXPECT_LE(view.pushes(), 3 * intervals) << "40 changes in " << busy / 1ms << " ms";
}

TEST(LobbyPush, ListRoomsFiltersAndPagesWithAStableCursor) {
  ServerFixture server;
  auto bob = server.player("bob");
  std::set<std::string> bigtwo;
  for (int r = 0; r < 5; ++r) bigtwo.insert(create(*bob, "bigtwo"));
  const std::string spades = create(*bob, "spades");
  const std::string full = *bigtwo.begin();
  for (int seat = 1; seat < 4; ++seat) {
    ASSERT_EQ(bob->request({{"type", "add_bot"}, {"room", full}, {"seat", seat}})["type"], "ok");
  }

  std::vector<std::string> paged;
  Json query = {{"type", "list_rooms"}, {"kind", "bigtwo"}, {"limit", 2}};
  for (int page = 0; page < 5; ++page) {
    const Json reply = bob->request(query);
    ASSERT_EQ(reply["type"], "rooms") << reply;
    for (const Json& room : reply["rooms"]) paged.push_back(room["room"]);
    if (!reply.contains("next")) break;
    query["after"] = reply["next"];
    if (page == 0) create(*bob, "spades");  // a room opening meanwhile changes nothing here
  }
  EXPECT_EQ(paged, std::vector<std::string>(bigtwo.begin(), bigtwo.end()));

  const Json open = bob->request(
      {{"type", "list_rooms"}, {"kind", "bigtwo"}, {"status", "waiting"}, {"free_seat", true}});
  EXPECT_EQ(open["rooms"].size(), 4U) << "the full room is left out";
  EXPECT_EQ(bob->request({{"type", "list_rooms"}, {"kind", "spades"}})["rooms"].size(), 2U);
  EXPECT_EQ(bob->request({{"type", "list_rooms"}, {"status", "playing"}})["rooms"].size(), 0U);
  (void)spades;
}

TEST(LobbyPush, BadRequestsAreRefusedWithTheirReAndChangeNothing) {
  ServerFixture server;
  auto alice = server.player("alice");
  auto bob = server.player("bob");
  ASSERT_EQ(alice->request({{"type", "subscribe_lobby"}, {"kind", "bigtwo"}})["type"], "lobby");

  const std::string long_kind(65, 'k');
  const std::vector<std::pair<Json, std::string>> refused = {
      {{{"type", "subscribe_lobby"}, {"kind", "nosuchgame"}}, "unknown_game"},
      {{{"type", "subscribe_lobby"}, {"kind", long_kind}}, "bad_request"},
      {{{"type", "subscribe_lobby"}, {"kind", 3}}, "bad_request"},
      {{{"type", "list_rooms"}, {"kind", "nosuchgame"}}, "unknown_game"},
      {{{"type", "list_rooms"}, {"status", "open"}}, "bad_request"},
      {{{"type", "list_rooms"}, {"free_seat", "yes"}}, "bad_request"},
      {{{"type", "list_rooms"}, {"limit", 0}}, "bad_request"},
      {{{"type", "list_rooms"}, {"limit", 501}}, "bad_request"},
      {{{"type", "list_rooms"}, {"limit", 2.5}}, "bad_request"},
      {{{"type", "list_rooms"}, {"after", std::string(65, 'a')}}, "bad_request"},
  };
  for (const auto& [request, code] : refused) {
    const Json reply = alice->request(request);
    EXPECT_EQ(reply["type"], "error") << request;
    EXPECT_EQ(reply["code"], code) << request << " -> " << reply;
    EXPECT_TRUE(reply.contains("re")) << reply;
  }
  // The refused re-subscriptions left the first one as it was: still Big Two, still live.
  const std::string room = create(*bob, "bigtwo");
  const auto added = alice->next_of("room_added", 2s);
  ASSERT_TRUE(added) << "the subscription did not survive the refusals";
  EXPECT_EQ((*added)["rooms"][0]["room"], room);
  EXPECT_EQ(alice->request({{"type", "ping"}})["type"], "pong");
}

}  // namespace
}  // namespace parlor::testing
