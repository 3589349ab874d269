// Players over time, over real WebSockets to a real server with a SQLite store: rename (its
// room and later listings show the new name, bad names are refused and change nothing),
// tokens that expire after --token-idle-s away and can be revoked, and the soak: ten thousand
// anonymous players come and go while the store's player table and the server's memory stay
// bounded and a seated player in a live room is never forgotten.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <thread>

#include "server/store/testing/sqlite_file.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

server::ServerConfig stored_config(const fs::path& dir, std::chrono::seconds token_idle) {
  auto config = ServerFixture::test_config();
  config.store = "sqlite";
  config.data_dir = dir.string();
  config.token_idle = token_idle;
  return config;
}

// The first column of the first row of `sql` in the server's SQLite file (read-only, beside
// the running server, as any other process could): -1 when it cannot be read.
std::int64_t stored(const fs::path& dir, const std::string& sql) {
  return server::store_test::first_value(dir / "parlor.db", sql);
}

// parlor_players from /metrics: the players the server holds in memory.
std::int64_t players_in_memory(unsigned short port) {
  const std::string text = http_get(port, "/metrics");
  const std::string key = "\nparlor_players ";
  const auto at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + key.size()));
}

Json hello_with_token(TestClient& client, const std::string& token) {
  return client.request({{"type", "hello"}, {"token", token}, {"protocol", 1}});
}

// The next `room` push whose seat `seat` shows `name`, or null.
Json room_showing(TestClient& client, int seat, const std::string& name) {
  const auto until = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < until) {
    const auto push = client.next_of("room", 500ms);
    if (push && (*push)["seats"][seat].is_object() && (*push)["seats"][seat]["name"] == name) {
      return *push;
    }
  }
  return Json();
}

// The name list_rooms shows at `seat` of `room`.
std::string listed_name(TestClient& client, const std::string& room, int seat) {
  const Json rooms = client.request({{"type", "list_rooms"}});
  for (const Json& summary : rooms["rooms"]) {
    if (summary["room"] == room && summary["seats"][seat].is_object()) {
      return summary["seats"][seat]["name"].get<std::string>();
    }
  }
  return "";
}

// ---- rename ----------------------------------------------------------------------------------

TEST(Rename, TheRoomAndLaterListingsShowTheNewNameWhichOutlivesARestart) {
  const auto dir = scratch_dir("player_lifecycle_test", "rename");
  std::string room;
  std::string bob_token;
  {
    ServerFixture server(stored_config(dir, 3600s));
    auto alice = server.player("alice");
    auto bob = server.connect();
    bob_token = bob->hello("bob")["token"].get<std::string>();
    const Json created =
        alice->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}});
    ASSERT_EQ(created["type"], "room_created") << created;
    room = created["room"].get<std::string>();
    ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
    ASSERT_TRUE(room_showing(*alice, 1, "bob").is_object());

    const Json renamed = bob->request({{"type", "rename"}, {"name", "  Bobby Tables \t"}});
    EXPECT_EQ(renamed["type"], "ok") << renamed;
    EXPECT_TRUE(renamed.contains("re"));
    const Json push = room_showing(*alice, 1, "Bobby Tables");
    ASSERT_TRUE(push.is_object()) << "alice was not shown the new name (trimmed as hello's)";
    EXPECT_EQ(push["seats"][0]["name"], "alice");
    EXPECT_EQ(listed_name(*alice, room, 1), "Bobby Tables");
    // Chat goes out under the new name too.
    ASSERT_EQ(bob->request({{"type", "chat"}, {"room", room}, {"text", "hi"}})["type"], "ok");
    const auto chat = alice->next_of("chat");
    ASSERT_TRUE(chat);
    EXPECT_EQ((*chat)["name"], "Bobby Tables");
  }
  // The store has it: after a restart the room and its listing still show it.
  ServerFixture server(stored_config(dir, 3600s));
  auto bob = server.connect();
  ASSERT_EQ(hello_with_token(*bob, bob_token)["type"], "welcome");
  EXPECT_EQ(listed_name(*bob, room, 1), "Bobby Tables");
}

TEST(Rename, BadNamesAreRefusedWithHellosCodeAndChangeNothing) {
  const auto dir = scratch_dir("player_lifecycle_test", "rename-bad");
  ServerFixture server(stored_config(dir, 3600s));
  auto before_hello = server.connect();
  const Json early = before_hello->request({{"type", "rename"}, {"name", "x"}});
  EXPECT_EQ(early["code"], "hello_required") << early;

  auto alice = server.player("alice");
  auto bob = server.player("bob");
  const Json created = alice->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}});
  const std::string room = created["room"].get<std::string>();
  ASSERT_EQ(bob->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  ASSERT_TRUE(room_showing(*alice, 1, "bob").is_object());

  // What hello says about the same name, checked against what rename says.
  const std::vector<Json> bad_names = {"",
                                       "   ",
                                       std::string(33, 'n'),
                                       "bell\x07",
                                       "\xe2\x80\xae"
                                       "evil",  // U+202E, a direction override
                                       5,
                                       Json::array({"bob"}),
                                       nullptr};
  for (const Json& name : bad_names) {
    const Json refused = bob->request({{"type", "rename"}, {"name", name}});
    EXPECT_EQ(refused["type"], "error") << name;
    EXPECT_EQ(refused["code"], "bad_request") << name;
    EXPECT_TRUE(refused.contains("re")) << name;
    if (name.is_string()) {
      auto fresh = server.connect();
      const Json hello = fresh->request({{"type", "hello"}, {"name", name}, {"protocol", 1}});
      EXPECT_EQ(hello["code"], "bad_request");
      EXPECT_EQ(hello["message"], refused["message"]) << "rename checks a name as hello does";
    }
  }
  const Json missing = bob->request({{"type", "rename"}});
  EXPECT_EQ(missing["code"], "bad_request") << missing;
  EXPECT_NE(missing["message"].get<std::string>().find("\"name\""), std::string::npos);

  // Nothing changed: no room push, the listing and the store still say bob, and the
  // connection is open. The store's file has its players a second after their redo log frame
  // (server/store/README.md): bob is looked for there until then; a rename that went through
  // would leave no bob.
  EXPECT_FALSE(alice->next_of("room", 300ms)) << "a refused rename pushed the room";
  EXPECT_EQ(listed_name(*alice, room, 1), "bob");
  EXPECT_EQ(bob->request({{"type", "ping"}})["type"], "pong");
  std::int64_t bobs = stored(dir, "SELECT count(*) FROM players WHERE name = 'bob'");
  for (int tries = 0; bobs != 1 && tries < 50; ++tries) {
    std::this_thread::sleep_for(100ms);
    bobs = stored(dir, "SELECT count(*) FROM players WHERE name = 'bob'");
  }
  EXPECT_EQ(bobs, 1);
}

// ---- tokens --------------------------------------------------------------------------------

TEST(TokenExpiry, ATokenAwayLongerThanTheIdlePeriodIsRefusedUnlessItsPlayerSitsInARoom) {
  const auto dir = scratch_dir("player_lifecycle_test", "expiry");
  std::string away_token;
  std::string seated_token;
  std::string stayed_token;
  {
    ServerFixture server(stored_config(dir, 1s));
    auto away = server.connect();
    away_token = away->hello("away")["token"].get<std::string>();
    auto seated = server.connect();
    seated_token = seated->hello("seated")["token"].get<std::string>();
    const Json created =
        seated->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}});
    ASSERT_EQ(created["type"], "room_created");
    auto stayed = server.connect();
    stayed_token = stayed->hello("stayed")["token"].get<std::string>();
    away.reset();    // dropped: away from now on
    seated.reset();  // dropped too, but its seat in the waiting room holds it
    std::this_thread::sleep_for(1600ms);
    stayed.reset();  // connected all along: its idle time counts from now

    auto again = server.connect();
    const Json refused = hello_with_token(*again, away_token);
    EXPECT_EQ(refused["code"], "invalid_token") << refused;
    EXPECT_TRUE(refused.contains("re"));
    auto back = server.connect();
    EXPECT_EQ(hello_with_token(*back, stayed_token)["type"], "welcome")
        << "idle time counts from the end of the connection";
    auto seated_back = server.connect();
    const Json resumed = hello_with_token(*seated_back, seated_token);
    EXPECT_EQ(resumed["type"], "welcome") << "a seated player's token does not expire";
    EXPECT_TRUE(seated_back->next_of("room")) << "and gets its room back";
  }
  // After a restart the store's last-seen time still says so.
  ServerFixture server(stored_config(dir, 1s));
  auto again = server.connect();
  EXPECT_EQ(hello_with_token(*again, away_token)["code"], "invalid_token");
}

TEST(RevokeToken, TheOldTokenStopsWorkingTheConnectionStaysAndTheNewTokenResumes) {
  const auto dir = scratch_dir("player_lifecycle_test", "revoke");
  std::string old_token;
  std::string new_token;
  std::string player;
  {
    ServerFixture server(stored_config(dir, 3600s));
    auto early = server.connect();
    EXPECT_EQ(early->request({{"type", "revoke_token"}})["code"], "hello_required");

    auto alice = server.connect();
    const Json welcome = alice->hello("alice");
    old_token = welcome["token"].get<std::string>();
    player = welcome["player"].get<std::string>();
    const Json answer = alice->request({{"type", "revoke_token"}});
    ASSERT_EQ(answer["type"], "token") << answer;
    EXPECT_TRUE(answer.contains("re"));
    EXPECT_EQ(answer["player"], player);
    new_token = answer["token"].get<std::string>();
    EXPECT_NE(new_token, old_token);
    EXPECT_GE(new_token.size(), 32u) << "128 bits, hex";
    EXPECT_EQ(alice->request({{"type", "ping"}})["type"], "pong") << "the connection stays";

    auto thief = server.connect();
    const Json refused = hello_with_token(*thief, old_token);
    EXPECT_EQ(refused["code"], "invalid_token") << refused;
    EXPECT_EQ(alice->request({{"type", "ping"}})["type"], "pong")
        << "a refused token takes nothing over";

    // A malformed revoke_token (an id that cannot be echoed) changes nothing.
    alice->send_text(R"({"type":"revoke_token","id":[1]})");
    const auto malformed = alice->next_of("error");
    ASSERT_TRUE(malformed);
    EXPECT_EQ((*malformed)["code"], "bad_request");
    auto owner = server.connect();
    const Json resumed = hello_with_token(*owner, new_token);
    EXPECT_EQ(resumed["type"], "welcome") << resumed;
    EXPECT_EQ(resumed["player"], player);
  }
  // Stored before it was answered: after a restart only the new token works.
  ServerFixture server(stored_config(dir, 3600s));
  auto thief = server.connect();
  EXPECT_EQ(hello_with_token(*thief, old_token)["code"], "invalid_token");
  auto owner = server.connect();
  EXPECT_EQ(hello_with_token(*owner, new_token)["player"], player);
}

// ---- the soak ------------------------------------------------------------------------------

// Ten thousand anonymous players each say hello with a name and go, in batches of 200 (the
// hellos of a batch pipelined, so the store commits each batch together rather than one
// fsync each), against a server that forgets a player 1 s after it left. Sizing: 10,000
// connections are what the issue asks for; at most 200 are open at once (well under the
// descriptor limit); on this two-core machine the run takes 5 to 10 s (1,000 to 1,800
// players a second), 60 s at a tenth of the slower speed. The bound: a player is held at most
// the idle period and a sweep interval (a quarter of it) after it left; with 1.75 s more for
// the timer and the store's writer on a busy machine, every sample of the server's memory
// and of the store must hold no more than the keeper and the players who left within the
// last 3 s (counted from the batches' own times, not from an average rate), far fewer than
// 10,000. Once the run ends they drain to the seated player alone, who sits in a live room
// all along and is never forgotten.
TEST(PlayerRetention, TenThousandAnonymousPlayersLeaveTheStoreAndMemoryBounded) {
  constexpr int kPlayers = 10'000;
  constexpr int kBatch = 200;
  constexpr auto kIdle = 1s;
  const auto dir = scratch_dir("player_lifecycle_test", "soak");
  auto config = stored_config(dir, kIdle);
  config.max_connections_per_ip = 4 * kBatch;
  ServerFixture server(config);

  auto keeper = server.connect();
  const std::string keeper_token = keeper->hello("keeper")["token"];
  const Json created = keeper->request({{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}});
  ASSERT_EQ(created["type"], "room_created");
  const std::string room = created["room"].get<std::string>();
  keeper.reset();  // away, but seated in a live (waiting) room

  constexpr auto kHeldAtMost = 3s;
  using SteadyClock = std::chrono::steady_clock;
  // When each batch was gone (all its connections dropped): the players who left by then.
  std::vector<std::pair<SteadyClock::time_point, int>> left;
  // The players who may still be held at `now`: those who left within kHeldAtMost, the
  // keeper, and the batch being dropped.
  auto allowed = [&](SteadyClock::time_point now, int done) {
    int gone_before = 0;
    for (const auto& [at, count] : left) {
      if (at < now - kHeldAtMost) gone_before = count;
    }
    return static_cast<std::int64_t>(done - gone_before) + 1;
  };
  std::int64_t peak_memory = 0;
  std::int64_t peak_store = 0;
  std::int64_t worst_excess = std::numeric_limits<std::int64_t>::min();
  const auto started = SteadyClock::now();
  for (int done = 0; done < kPlayers; done += kBatch) {
    std::vector<std::unique_ptr<TestClient>> batch;
    for (int i = 0; i < kBatch; ++i) {
      batch.push_back(server.connect());
      batch.back()->send({{"type", "hello"},
                          {"name", "anon " + std::to_string(done + i)},
                          {"protocol", 1},
                          {"id", 1}});
    }
    for (auto& client : batch) {
      const auto welcome = client->next_of("welcome", 10s);
      ASSERT_TRUE(welcome) << "no welcome in batch " << done / kBatch;
    }
    batch.clear();  // every connection of the batch drops
    left.emplace_back(SteadyClock::now(), done + kBatch);
    if ((done / kBatch) % 5 == 4) {
      const std::int64_t in_memory = players_in_memory(server.port());
      const std::int64_t in_store = stored(dir, "SELECT count(*) FROM players");
      const std::int64_t bound = allowed(SteadyClock::now(), done + kBatch);
      peak_memory = std::max(peak_memory, in_memory);
      peak_store = std::max(peak_store, in_store);
      worst_excess = std::max(worst_excess, std::max(in_memory, in_store) - bound);
      EXPECT_LE(in_memory, bound) << "in memory after " << done + kBatch << " players";
      EXPECT_LE(in_store, bound) << "stored after " << done + kBatch << " players";
    }
  }
  const double seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
  std::cout << "[ soak     ] " << kPlayers << " players in " << seconds << " s ("
            << static_cast<int>(kPlayers / seconds) << "/s); peak in memory " << peak_memory
            << ", peak stored " << peak_store
            << "; at worst the bound (players who left in the last 3 s) minus the count was "
            << -worst_excess << '\n';
  EXPECT_GT(peak_memory, 0);
  EXPECT_LT(std::max(peak_memory, peak_store), kPlayers) << "nobody was forgotten during the run";

  // Drained: within the idle period and a few sweeps only the keeper is left.
  const auto until = std::chrono::steady_clock::now() + kIdle + 3s;
  std::int64_t in_memory = -1;
  std::int64_t in_store = -1;
  while (std::chrono::steady_clock::now() < until) {
    in_memory = players_in_memory(server.port());
    in_store = stored(dir, "SELECT count(*) FROM players");
    if (in_memory == 1 && in_store == 1) break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(in_memory, 1);
  EXPECT_EQ(in_store, 1);
  EXPECT_EQ(stored(dir, "SELECT count(*) FROM players WHERE name = 'keeper'"), 1);

  // The keeper comes back to its seat with its token.
  auto back = server.connect();
  ASSERT_EQ(hello_with_token(*back, keeper_token)["type"], "welcome");
  const auto push = back->next_of("room");
  ASSERT_TRUE(push);
  EXPECT_EQ((*push)["room"], room);
  EXPECT_EQ((*push)["you"], 0);
}

}  // namespace
}  // namespace parlor::testing
