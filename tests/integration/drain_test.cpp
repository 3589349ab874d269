// The drain test: a cluster node that gets SIGTERM (a rolling restart, a scale-down) must
//
//   1. answer /readyz with 503 at once, so that the proxy's health checks take it out of
//      rotation;
//   2. keep serving its connections for --drain-ms;
//   3. then close them with 1012 ("service restart") and a reason that says to reconnect;
//   4. exit 0, having left the cluster: another node takes its rooms over without waiting
//      for the node's lease to lapse, and a member resumes there with its token and gets the
//      room and its state.
//
// Two real parlor-server nodes on a real PostgreSQL and a real Redis, on 127.0.0.1. And the
// single server keeps its old shutdown: no drain, 1001.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/store/testing/postgres_server.h"
#include "tests/support/redis_server.h"
#include "tests/support/server_fixture.h"
#include "tests/support/server_process.h"
#include "tests/support/test_client.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using server::testing::PostgresServer;

constexpr auto kDrain = 1500ms;
// Long enough to tell a node that left (its rooms are taken over at the next pass, within a
// third of a lease) from one whose registration had to lapse (at least two thirds of a lease
// after its last heartbeat).
constexpr auto kLease = 9000ms;

std::string status_of(const std::string& http_answer) {
  return http_answer.substr(0, http_answer.find("\r\n"));
}

std::string log_text(const fs::path& log) {
  std::ifstream in(log);
  return {std::istreambuf_iterator<char>(in), {}};
}

fs::path test_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("parlor-" + name + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(DrainTest, ANodeDrainsClosesWith1012AndItsRoomResumesOnAnotherNode) {
  if (!PostgresServer::missing_binaries().empty() || !RedisServer::available()) {
    FAIL() << "PostgreSQL 15 and redis-server are needed (make deps installs them)";
  }
  const fs::path dir = test_dir("drain");
  PostgresServer postgres;
  const std::string store_url = postgres.create_database("drain");
  RedisServer redis;
  auto node = [&](const std::string& name) {
    return std::make_unique<ServerProcess>(
        PARLOR_SERVER_BINARY,
        std::vector<std::string>{"--store", store_url, "--cluster", redis.url(), "--node-id", name,
                                 "--lease-ms", std::to_string(kLease.count()), "--drain-ms",
                                 std::to_string(kDrain.count()), "--threads", "1", "--bot-delay-ms",
                                 "50", "--static-dir", dir.string()},
        dir / "logs", name);
  };
  // The survivor starts first: a node takes nothing over during its first lease.
  auto survivor = node("survivor");
  ASSERT_EQ(survivor->start(), "");
  const auto survivor_started = Clock::now();
  auto leaving = node("leaving");
  ASSERT_EQ(leaving->start(), "");

  // A player's room on the node that will leave: Big Two, three server bots, under way.
  TestClient player("127.0.0.1", leaving->port());
  const Json welcome = player.hello("alice");
  ASSERT_EQ(welcome["type"], "welcome") << welcome;
  const std::string token = welcome["token"];
  const Json created =
      player.request({{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"grace", 600}}}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const std::string room = created["room"];
  for (int seat = 1; seat < 4; ++seat) {
    ASSERT_EQ(player.request({{"type", "add_bot"}, {"room", room}, {"seat", seat}})["type"], "ok");
  }
  ASSERT_EQ(player.request({{"type", "start"}, {"room", room}})["type"], "ok");
  ASSERT_TRUE(player.next_of("state")) << "no state after the start";
  // The survivor's first lease must be over, or the takeover below would wait for it.
  std::this_thread::sleep_until(survivor_started + kLease + 200ms);
  ASSERT_EQ(status_of(http_get(leaving->port(), "/readyz")), "HTTP/1.1 200 OK");

  // 1. SIGTERM: /readyz answers 503 at once.
  ASSERT_EQ(::kill(leaving->pid(), SIGTERM), 0);
  const auto term_at = Clock::now();
  std::string readyz;
  while (Clock::now() < term_at + 1s) {
    readyz = status_of(http_get(leaving->port(), "/readyz"));
    if (readyz.find(" 503 ") != std::string::npos) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_NE(readyz.find(" 503 "), std::string::npos) << "/readyz during the drain: " << readyz;
  const auto not_ready_after = Clock::now() - term_at;
  EXPECT_LT(not_ready_after, kDrain / 2) << "/readyz turned 503 too late for the proxy";

  // 2. The drain: the player's connection is still served.
  const Json pong = player.request({{"type", "ping"}}, 1s);
  EXPECT_EQ(pong["type"], "pong") << pong;
  EXPECT_FALSE(player.closed());
  EXPECT_EQ(status_of(http_get(leaving->port(), "/readyz")).find(" 200 "), std::string::npos);

  // 3. Then the close: 1012, telling the client to reconnect, not before the drain is over.
  ASSERT_TRUE(player.wait_closed(kDrain + 5s)) << tail_of(leaving->log(), 20);
  const auto closed_after = Clock::now() - term_at;
  EXPECT_EQ(player.close_code(), 1012) << player.close_reason();
  EXPECT_NE(player.close_reason().find("reconnect"), std::string::npos) << player.close_reason();
  EXPECT_GE(closed_after, kDrain - 100ms) << "closed before the drain was over";

  // 4. It exits 0, having left the cluster.
  EXPECT_EQ(leaving->wait_exit(15s), "exit status 0") << tail_of(leaving->log(), 20);
  const auto exited_at = Clock::now();
  const std::string leaving_log = log_text(leaving->log());
  EXPECT_NE(leaving_log.find("draining for 1500 ms"), std::string::npos) << leaving_log;
  EXPECT_NE(leaving_log.find("left; its rooms move to other nodes"), std::string::npos)
      << leaving_log;

  // The player resumes on the survivor with its token: room_moved while the room is between
  // owners, then the room and its state, well before the leaving node's lease could lapse.
  std::unique_ptr<TestClient> resumed;
  Json probe;
  while (Clock::now() < exited_at + kLease) {
    auto client = std::make_unique<TestClient>("127.0.0.1", survivor->port());
    const Json again = client->request({{"type", "hello"}, {"token", token}, {"protocol", 1}});
    ASSERT_EQ(again["type"], "welcome") << again;
    EXPECT_EQ(again["player"], welcome["player"]);
    probe = client->request({{"type", "legal_moves"}, {"room", room}});
    if (probe.value("code", "") != "room_moved" && probe.value("code", "") != "no_such_room") {
      resumed = std::move(client);
      break;
    }
    std::this_thread::sleep_for(100ms);
  }
  const auto served_after = Clock::now() - exited_at;
  ASSERT_TRUE(resumed) << "the room was not taken over; last answer " << probe << "\n"
                       << tail_of(survivor->log(), 20);
  EXPECT_EQ(probe.value("type", ""), "legal_moves") << probe;
  EXPECT_LT(served_after, kLease * 2 / 3)
      << "the takeover waited for the lease: the node did not leave the cluster";
  bool room_push = false;
  bool state_push = false;
  for (const Json& frame : resumed->pending()) {
    if (frame.value("room", "") != room) continue;
    room_push = room_push || frame.value("type", "") == "room";
    state_push = state_push || frame.value("type", "") == "state";
  }
  EXPECT_TRUE(room_push && state_push) << "the resume did not push the room and its state";
  std::cout << "readyz 503 after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(not_ready_after).count()
            << " ms, closed with 1012 after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(closed_after).count()
            << " ms, room served on the survivor "
            << std::chrono::duration_cast<std::chrono::milliseconds>(served_after).count()
            << " ms after the node exited" << std::endl;
  fs::remove_all(dir);
}

// A single server with --drain-ms (behind a proxy that health-checks /readyz): during the drain
// its games go on but it opens no new rooms, by create_room or by quick play; then it closes
// with 1012 and exits 0, within the drain and the bounded close that follows it.
TEST(DrainTest, ADrainingServerPlaysOnButOpensNoRoomsAndExitsInTime) {
  const fs::path dir = test_dir("drain-single");
  ServerProcess single(PARLOR_SERVER_BINARY,
                       {"--store", "none", "--drain-ms", std::to_string(kDrain.count()),
                        "--bot-delay-ms", "50", "--static-dir", dir.string()},
                       dir / "logs", "single");
  ASSERT_EQ(single.start(), "");
  TestClient player("127.0.0.1", single.port());
  ASSERT_EQ(player.hello("carol")["type"], "welcome");
  const Json created = player.request({{"type", "create_room"}, {"kind", "bigtwo"}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const std::string room = created["room"];
  for (int seat = 1; seat < 4; ++seat) {
    ASSERT_EQ(player.request({{"type", "add_bot"}, {"room", room}, {"seat", seat}})["type"], "ok");
  }
  ASSERT_EQ(player.request({{"type", "start"}, {"room", room}})["type"], "ok");

  ASSERT_EQ(::kill(single.pid(), SIGTERM), 0);
  const auto term_at = Clock::now();
  std::string readyz;
  while (Clock::now() < term_at + 1s) {
    readyz = status_of(http_get(single.port(), "/readyz"));
    if (readyz.find(" 503 ") != std::string::npos) break;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_NE(readyz.find(" 503 "), std::string::npos) << readyz;
  for (const Json& ask : {Json{{"type", "create_room"}, {"kind", "bigtwo"}},
                          Json{{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 4}}}) {
    const Json refused = player.request(ask, 1s);
    EXPECT_EQ(refused.value("code", ""), "shutting_down") << ask << " -> " << refused;
    EXPECT_NE(refused.value("message", "").find("shutting down"), std::string::npos) << refused;
  }
  // The game under way is still served.
  const Json legal = player.request({{"type", "legal_moves"}, {"room", room}}, 1s);
  EXPECT_EQ(legal.value("type", ""), "legal_moves") << legal;
  EXPECT_FALSE(player.closed());

  ASSERT_TRUE(player.wait_closed(kDrain + 5s)) << tail_of(single.log(), 20);
  EXPECT_EQ(player.close_code(), 1012) << player.close_reason();
  EXPECT_GE(Clock::now() - term_at, kDrain - 100ms) << "closed before the drain was over";
  // The bound: the drain, then at most the 3 s the close handshakes get, and the store.
  EXPECT_EQ(single.wait_exit(6s), "exit status 0") << tail_of(single.log(), 20);
  EXPECT_LT(Clock::now() - term_at, kDrain + 5s) << "the exit took longer than its bound";
  fs::remove_all(dir);
}

// Without --drain-ms and outside a cluster, SIGTERM closes at once with 1001, as before.
TEST(DrainTest, ASingleServerStillClosesAtOnceWith1001) {
  const fs::path dir = test_dir("nodrain");
  ServerProcess single(PARLOR_SERVER_BINARY, {"--store", "none", "--static-dir", dir.string()},
                       dir / "logs", "single");
  ASSERT_EQ(single.start(), "");
  TestClient player("127.0.0.1", single.port());
  ASSERT_EQ(player.hello("bob")["type"], "welcome");
  ASSERT_EQ(::kill(single.pid(), SIGTERM), 0);
  const auto term_at = Clock::now();
  ASSERT_TRUE(player.wait_closed(5s));
  EXPECT_EQ(player.close_code(), 1001) << player.close_reason();
  EXPECT_LT(Clock::now() - term_at, 1s) << "a single server drained";
  EXPECT_EQ(single.wait_exit(10s), "exit status 0") << tail_of(single.log(), 20);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace parlor::testing
