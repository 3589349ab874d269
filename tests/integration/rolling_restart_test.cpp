// The rolling restart: every node of a three-node cluster (real PostgreSQL, real Redis, real
// parlor-server processes on 127.0.0.1) is restarted in turn while games are played, exactly
// as docs/OPERATIONS.md, "Rolling restart of a cluster", tells an operator to do it:
//
//   SIGTERM the node; it drains (--drain-ms), closes its connections with 1012 and exits 0
//   within its bound; start it again with the same flags, node id and port; wait until its
//   GET /readyz answers 200; then the next node.
//
// Meanwhile clients play seat 0 of Big Two rooms against three server bots. A client whose
// connection closes (1012) or whose room moves reconnects to any node that takes its
// connection — as through the cluster's proxy, which sends a new connection to a live node —
// and resumes with its token. Checked: every node exited 0 in time and left the cluster;
// every game reached game_over; every move a client got `ok` for is in PostgreSQL exactly
// once, at its seq; each room is served at the end.
//
// The seat driver here is deliberately smaller than cluster_test's (which that file keeps to
// itself): it follows no `node` hints, it only reconnects and resumes. PARLOR_SEED replays the
// clients' choices (the interleaving with the nodes still varies).
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "games/testing/self_play.h"
#include "server/store/postgres_store.h"
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

constexpr int kNodes = 3;
constexpr int kRoomsPerNode = 2;
// Short, so that the test is quick: a leaving node's rooms are taken over within a third of a
// lease, and a node takes nothing over during its first lease.
constexpr auto kLease = 1500ms;
constexpr auto kDrain = 500ms;
// The bots' and the clients' time per move: a game (about fifty moves) outlasts the restarts.
constexpr auto kMoveDelay = 300ms;
// A client that hears nothing this long resumes afresh (its room may be between owners).
constexpr auto kQuiet = 2s;

std::string status_line(unsigned short port, const std::string& target) {
  try {
    const std::string answer = http_get(port, target);
    return answer.substr(0, answer.find("\r\n"));
  } catch (const std::exception& e) {
    return e.what();
  }
}

struct Acked {
  std::int64_t seq = 0;
  Json move;
};

// One room, played at seat 0 by one client thread (server bots hold seats 1 to 3).
struct Table {
  std::string room;
  std::string token;
  unsigned short home_port = 0;  // the node it was created on
  std::vector<Acked> acked;
  std::atomic<bool> over{false};
  std::string failure;
  int closes_1012 = 0;  // connections the server closed with 1012 (a drain)
  int reconnects = 0;
};

// Plays seat 0 of a table to game_over: on a state that prompts it, a random legal move; on a
// close, a room_moved, or a silence, a new connection to any node that takes it and a resume
// with the token (which pushes the room and its state once the room is served again).
class SeatDriver {
 public:
  SeatDriver(Table& table, std::vector<unsigned short> ports, std::uint64_t seed)
      : table_(table), ports_(std::move(ports)), rng_(seed) {}

  void run(Clock::time_point deadline) {
    while (!table_.over && Clock::now() < deadline) {
      if (!client_ && !connect(deadline)) break;
      const auto frame = client_->next(kQuiet);
      if (!frame || !handle(*frame)) {
        if (client_->closed() && client_->close_code() == 1012) ++table_.closes_1012;
        client_.reset();
        ++table_.reconnects;
      }
    }
    if (!table_.over && table_.failure.empty()) table_.failure = "no game_over in time";
  }

 private:
  // A welcome on the home node first, then on each node in turn: a node that is down refuses
  // the connection, a draining one answers the upgrade with 503, as the proxy would see.
  bool connect(Clock::time_point deadline) {
    while (Clock::now() < deadline) {
      const unsigned short port =
          table_.reconnects == 0 ? table_.home_port : ports_[next_port_++ % ports_.size()];
      try {
        auto client = std::make_unique<TestClient>("127.0.0.1", port);
        const Json welcome =
            client->request({{"type", "hello"}, {"token", table_.token}, {"protocol", 1}}, 2s);
        if (welcome.value("type", "") == "welcome") {
          client_ = std::move(client);
          return true;
        }
      } catch (const std::exception&) {
      }
      ++table_.reconnects;
      std::this_thread::sleep_for(100ms);
    }
    table_.failure = "no node took a connection";
    return false;
  }

  // False when the connection must be replaced.
  bool handle(const Json& frame) {
    const std::string type = frame.value("type", "");
    if (type == "error" && frame.value("code", "") == "room_moved") return false;
    if (frame.value("room", "") != table_.room) return true;
    if (type == "game_over" || (type == "room" && frame.value("status", "") == "finished")) {
      table_.over = true;
      return true;
    }
    if (type != "state" || !frame.contains("prompt") || !frame.contains("seq")) return true;
    const Json& prompt = frame.at("prompt");
    if (!prompt.is_object() || !prompt.contains("legal") || prompt["legal"].empty()) return true;
    const Json& legal = prompt["legal"];
    std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
    const Json move = legal[pick(rng_)];
    std::this_thread::sleep_for(kMoveDelay);
    const Json reply = client_->request(
        {{"type", "move"}, {"room", table_.room}, {"move", move}, {"seq", frame.at("seq")}}, 3s);
    if (reply.value("type", "") == "ok") {
      table_.acked.push_back({reply["seq"].get<std::int64_t>(), move});
      return true;
    }
    // room_moved: the room is between owners or elsewhere; a closed connection: the drain.
    // Anything else (stale_state after a reconnect) is settled by the next state push.
    return reply.value("code", "") != "room_moved" && !client_->closed();
  }

  Table& table_;
  std::vector<unsigned short> ports_;
  std::mt19937_64 rng_;
  std::unique_ptr<TestClient> client_;
  std::size_t next_port_ = 0;
};

// What PostgreSQL holds for one table, against what its client was told: one finished game,
// its moves contiguous and never accepted by an older owner after a newer one, and each move
// the client got `ok` for stored once, at its seq, as seat 0's, unchanged.
std::string check_store(const Table& table, const server::RoomHistory& history) {
  if (history.games.size() != 1)
    return "expected one game, the store has " + std::to_string(history.games.size());
  const server::GameRecord& game = history.games[0];
  if (!game.finished_ms) return "the store does not have the game finished";
  std::map<std::int64_t, int> stored_at_seq;
  std::map<std::int64_t, const server::MoveRecord*> by_seq;
  std::int64_t expected = game.start_seq + 1;
  std::int64_t last_epoch = 0;
  for (const server::MoveRecord& m : game.moves) {
    if (m.seq != expected) return "moves not contiguous at seq " + std::to_string(m.seq);
    if (m.epoch < last_epoch) return "seq " + std::to_string(m.seq) + " stored by an old owner";
    last_epoch = m.epoch;
    ++stored_at_seq[m.seq];
    by_seq[m.seq] = &m;
    ++expected;
  }
  std::map<std::int64_t, int> acked_at_seq;
  for (const Acked& a : table.acked) {
    if (++acked_at_seq[a.seq] > 1) return "two moves got ok at seq " + std::to_string(a.seq);
    const auto found = by_seq.find(a.seq);
    if (found == by_seq.end()) return "the move ok'd at seq " + std::to_string(a.seq) + " is lost";
    if (stored_at_seq[a.seq] != 1) return "seq " + std::to_string(a.seq) + " stored twice";
    if (found->second->seat != 0 || found->second->move != a.move) {
      return "seq " + std::to_string(a.seq) + " holds " + found->second->move.dump() + " at seat " +
             std::to_string(found->second->seat) + ", but the client got ok for " + a.move.dump();
    }
  }
  return {};
}

std::string log_text(const fs::path& log) {
  std::ifstream in(log);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::chrono::milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

TEST(RollingRestartTest, EveryNodeRestartsInTurnWhileGamesPlayOn) {
  if (!PostgresServer::missing_binaries().empty() || !RedisServer::available()) {
    FAIL() << "PostgreSQL 15 and redis-server are needed (make deps installs them)";
  }
  const auto test_start = Clock::now();
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the clients' choices)" << std::endl;
  const fs::path dir = fs::temp_directory_path() / ("parlor-rolling-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  PostgresServer postgres;
  const std::string store_url = postgres.create_database("rolling");
  RedisServer redis;

  // The same flags for a node's every start, as a unit file would give them.
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  std::vector<unsigned short> ports;
  Clock::time_point last_started;
  for (int n = 0; n < kNodes; ++n) {
    const std::string name = "node" + std::to_string(n);
    nodes.push_back(
        std::make_unique<ServerProcess>(PARLOR_SERVER_BINARY,
                                        std::vector<std::string>{"--store",
                                                                 store_url,
                                                                 "--cluster",
                                                                 redis.url(),
                                                                 "--node-id",
                                                                 name,
                                                                 "--lease-ms",
                                                                 std::to_string(kLease.count()),
                                                                 "--drain-ms",
                                                                 std::to_string(kDrain.count()),
                                                                 "--threads",
                                                                 "1",
                                                                 "--bot-delay-ms",
                                                                 std::to_string(kMoveDelay.count()),
                                                                 "--rate-per-second",
                                                                 "100000",
                                                                 "--rate-burst",
                                                                 "100000",
                                                                 "--max-handshakes-per-ip",
                                                                 "100000",
                                                                 "--static-dir",
                                                                 dir.string()},
                                        dir / "logs", name));
    ASSERT_EQ(nodes.back()->start(), "");
    ports.push_back(nodes.back()->port());
    last_started = Clock::now();
  }
  auto logs = [&] {
    std::string out;
    for (auto& node : nodes) out += "  " + node->log().string() + ":\n" + tail_of(node->log(), 15);
    return out;
  };

  // Rooms on every node, each under way with three greedy bots.
  std::vector<std::unique_ptr<Table>> tables;
  for (int n = 0; n < kNodes; ++n) {
    for (int r = 0; r < kRoomsPerNode; ++r) {
      auto table = std::make_unique<Table>();
      table->home_port = ports[static_cast<std::size_t>(n)];
      TestClient creator("127.0.0.1", table->home_port);
      table->token = creator.hello("p" + std::to_string(n) + std::to_string(r))["token"];
      const Json created = creator.request(
          {{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"grace", 600}}}});
      ASSERT_EQ(created["type"], "room_created") << created;
      table->room = created["room"];
      for (int seat = 1; seat < 4; ++seat) {
        const Json added = creator.request(
            {{"type", "add_bot"}, {"room", table->room}, {"seat", seat}, {"strategy", "greedy"}});
        ASSERT_EQ(added["type"], "ok") << added;
      }
      ASSERT_EQ(creator.request({{"type", "start"}, {"room", table->room}})["type"], "ok");
      tables.push_back(std::move(table));
    }
  }
  const auto play_until = Clock::now() + 60s;
  std::vector<std::thread> drivers;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    drivers.emplace_back([&, i] { SeatDriver(*tables[i], ports, seed + i).run(play_until); });
  }

  // A node takes no room over during its first lease: the restarts begin once every node can.
  std::this_thread::sleep_until(last_started + kLease + 200ms);
  const auto restarts_began = Clock::now();
  for (int n = 0; n < kNodes; ++n) {
    SCOPED_TRACE("node" + std::to_string(n));
    ServerProcess& node = *nodes[static_cast<std::size_t>(n)];
    const int under_way = static_cast<int>(
        std::count_if(tables.begin(), tables.end(), [](const auto& t) { return !t->over; }));
    if (n == 0) {
      EXPECT_EQ(under_way, kNodes * kRoomsPerNode) << "games ended before the restarts began";
    }
    const fs::path first_log = node.log();
    ASSERT_EQ(::kill(node.pid(), SIGTERM), 0);
    const auto term_at = Clock::now();
    // The bound: the drain, at most 3 s for the close handshakes, then the store's commit.
    const std::string exit = node.wait_exit(kDrain + 5s);
    const auto exit_after = since(term_at);
    ASSERT_EQ(exit, "exit status 0") << tail_of(first_log, 20);
    EXPECT_GE(exit_after, kDrain - 100ms) << "it exited before its drain was over";
    const std::string said = log_text(first_log);
    EXPECT_NE(said.find("left; its rooms move to other nodes"), std::string::npos)
        << "it did not leave the cluster:\n"
        << tail_of(first_log, 20);

    const auto start_at = Clock::now();
    ASSERT_EQ(node.start(ports[static_cast<std::size_t>(n)]), "");
    std::string readyz;
    while (since(start_at) < 10s) {
      readyz = status_line(node.port(), "/readyz");
      if (readyz == "HTTP/1.1 200 OK") break;
      std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(readyz, "HTTP/1.1 200 OK") << tail_of(node.log(), 20);
    std::cout << "node" << n << ": " << under_way << " games under way, exited 0 "
              << exit_after.count() << " ms after SIGTERM, ready " << since(start_at).count()
              << " ms after its start" << std::endl;
  }
  std::cout << "rolling restart of " << kNodes << " nodes took " << since(restarts_began).count()
            << " ms" << std::endl;

  for (auto& driver : drivers) driver.join();

  server::PostgresStoreOptions options;
  options.url = store_url;
  options.exclusive = false;
  server::PostgresStore store(options);
  int closed_1012 = 0;
  int moved = 0;
  for (const auto& table : tables) {
    SCOPED_TRACE("room " + table->room + " (" + std::to_string(table->reconnects) +
                 " reconnects, " + std::to_string(table->acked.size()) + " moves ok'd)");
    EXPECT_TRUE(table->over) << table->failure << "\n" << logs();
    closed_1012 += table->closes_1012;
    const auto history = store.load_room(table->room);
    ASSERT_TRUE(history);
    if (history->room.epoch > 1) ++moved;
    EXPECT_EQ(check_store(*table, *history), "");
    // Served at the end: its owner answers, whichever node is asked (through a link).
    TestClient client("127.0.0.1", table->home_port);
    ASSERT_EQ(client.request({{"type", "hello"}, {"token", table->token}, {"protocol", 1}})["type"],
              "welcome");
    const Json answer = client.request({{"type", "legal_moves"}, {"room", table->room}});
    EXPECT_NE(answer.value("code", ""), "room_moved") << answer;
    EXPECT_NE(answer.value("code", ""), "no_such_room") << answer;
    EXPECT_NE(answer.value("type", ""), "timeout") << answer;
    std::cout << "room " << table->room << ": epoch " << history->room.epoch << ", "
              << table->acked.size() << " moves ok'd, " << table->reconnects << " reconnects ("
              << table->closes_1012 << " after 1012); legal_moves now answers "
              << answer.value("type", "") << " " << answer.value("code", "") << std::endl;
  }
  // Every node's clients were closed with 1012 and resumed; the drains moved rooms.
  EXPECT_GE(closed_1012, kNodes);
  EXPECT_GE(moved, kRoomsPerNode) << "no room moved off its draining node";
  store.close();
  std::cout << tables.size() << " games finished, " << moved << " rooms moved, " << closed_1012
            << " connections closed with 1012; the test took " << since(test_start).count() << " ms"
            << std::endl;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace
}  // namespace parlor::testing
