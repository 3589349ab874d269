// The cluster test: three real parlor-server nodes sharing a real PostgreSQL and a real
// Redis, all on 127.0.0.1, while clients play Big Two against server bots in rooms spread
// over the nodes. Mid-game the test
//
//   1. SIGKILLs a node: another node takes each of its rooms over and the game goes on;
//   2. SIGSTOPs a node past its lease and SIGCONTs it: its rooms were taken meanwhile, it
//      must not store a single write for them (fencing), and it lets them go;
//   3. kills Redis and starts it again empty: nodes register again, re-record their rooms,
//      and no room gets two owners;
//
// and then checks, against what PostgreSQL holds:
//   - every game reached game_over, and the store has it finished;
//   - every move a client got `ok` for is stored exactly once, at that seq, with that move;
//   - each game's moves are contiguous and their owners' epochs never go down (no move was
//     accepted by two owners);
//   - no frame any client received mentioned a card in another seat's hand (the leak scan,
//     against the stored log replayed under the engine).
//
// A client whose node dies reconnects to any live node, resumes with its token, and follows
// `room_moved` to the room's new owner. PARLOR_SEED replays the clients' choices (the
// interleaving with the nodes still varies). Bounded: the whole test takes about a minute.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "games/registry.h"
#include "games/testing/self_play.h"
#include "server/cluster/link_message.h"
#include "server/cluster/peer_link.h"
#include "server/store/postgres_store.h"
#include "server/store/testing/postgres_server.h"
#include "tests/support/game_driver.h"
#include "tests/support/raw_ws_client.h"
#include "tests/support/redis_server.h"
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
constexpr auto kLease = 1500ms;
// Bots and the client take this long per move, so that a game (about 55 moves) lasts long
// enough for the kill, the pause and the Redis restart to fall in its middle.
constexpr auto kMoveDelay = 250ms;

struct Acked {
  std::int64_t seq = 0;
  Json move;
};

// One room and the client that sits at seat 0 (three server bots hold the other seats).
struct Table {
  std::string room;
  std::string token;
  int home_node = 0;  // where it was created
  std::vector<Acked> acked;
  std::vector<Clock::time_point> acked_at;
  std::vector<Json> frames;  // every state and game_over frame the client received
  bool over = false;
  std::string failure;
  int reconnects = 0;
  // Times the driver found the room waiting for seat 0 with no prompt on its connection (a
  // push that never reached it, or a move that got no answer) and resumed afresh to recover.
  int resyncs = 0;
  // The driver's last steps (connections, frames, replies), printed when the table fails.
  std::deque<std::string> trail;
};

// Says hello as `name` on `client` and opens a Big Two room there (a long grace) with greedy
// bots in seats 1 to 3, recording its room and token in `table`. Returns what went wrong, or
// nothing.
// A connection through the proxy to the node named `name` (PROTOCOL.md, "Cluster mode").
TestClient::Options to_node(const std::string& name) {
  TestClient::Options options;
  options.target = "/ws?node=" + name;
  return options;
}

std::string open_table_with_bots(TestClient& client, const std::string& name, Table& table) {
  table.token = client.hello(name)["token"];
  const Json created =
      client.request({{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"grace", 600}}}});
  if (created["type"] != "room_created") return "create_room: " + created.dump();
  table.room = created["room"];
  for (int seat = 1; seat < 4; ++seat) {
    const Json added = client.request(
        {{"type", "add_bot"}, {"room", table.room}, {"seat", seat}, {"strategy", "greedy"}});
    if (added["type"] != "ok") return "add_bot: " + added.dump();
  }
  return "";
}

// A node log's lines that name `text` (a room id, a player id), each after the log's file name.
std::string lines_naming(const fs::path& log, const std::string& text) {
  std::string out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(text) != std::string::npos) {
      out += "  " + log.filename().string() + ": " + line + "\n";
    }
  }
  return out;
}

class Cluster {
 public:
  // `extra`: flags every node gets besides the cluster's own.
  Cluster(const fs::path& dir, const std::string& store_url, const std::string& redis_url,
          const std::vector<std::string>& extra = {}) {
    for (int n = 0; n < kNodes; ++n) {
      std::vector<std::string> flags{
          "--store", store_url, "--cluster", redis_url, "--node-id", "node" + std::to_string(n),
          "--lease-ms", std::to_string(kLease.count()), "--threads", "1", "--bot-delay-ms",
          std::to_string(kMoveDelay.count()), "--rate-per-second", "100000", "--rate-burst",
          "100000", "--max-handshakes-per-ip", "100000", "--static-dir", dir.string(),
          // Refusals are logged with their room and re: a
          // failure's report shows them.
          "--log-level", "debug"};
      flags.insert(flags.end(), extra.begin(), extra.end());
      nodes_.push_back(std::make_unique<ServerProcess>(PARLOR_SERVER_BINARY, std::move(flags),
                                                       dir / "logs", "node" + std::to_string(n)));
    }
  }
  std::string start_all() {
    for (auto& node : nodes_) {
      if (auto error = node->start(); !error.empty()) return error;
    }
    return {};
  }
  ServerProcess& node(int n) { return *nodes_[static_cast<std::size_t>(n)]; }
  // Ports of the nodes that run (a paused one included: a client cannot tell).
  std::vector<unsigned short> ports() {
    std::lock_guard lock(mutex_);
    std::vector<unsigned short> out;
    for (auto& node : nodes_) {
      if (node->running()) out.push_back(node->port());
    }
    return out;
  }
  std::mutex& mutex() { return mutex_; }
  // The nodes' log lines about ownership: takeovers, rooms let go, fenced writes.
  std::string ownership_story() {
    std::string out;
    for (auto& node : nodes_) {
      std::ifstream in(node->log());
      for (std::string line; std::getline(in, line);) {
        if (line.find("cluster:") != std::string::npos ||
            line.find("letting it go") != std::string::npos ||
            line.find("was refused") != std::string::npos) {
          out += "  " + node->log().filename().string() + ": " + line + "\n";
        }
      }
    }
    return out;
  }
  std::string logs() {
    std::string out;
    for (auto& node : nodes_) {
      out += "  " + node->log().string() + ":\n" + tail_of(node->log(), 12);
    }
    return out;
  }
  // Every node's log lines that name `text` (a room id, a player id).
  std::string lines_about(const std::string& text) {
    std::string out;
    for (auto& node : nodes_) out += lines_naming(node->log(), text);
    return out;
  }

 private:
  std::vector<std::unique_ptr<ServerProcess>> nodes_;
  std::mutex mutex_;
};

// Where a driver connects: the nodes themselves (following room_moved to the node it names),
// or only the cluster's public address (a proxy in front).
struct Reach {
  // The ports to try, in turn.
  std::function<std::vector<unsigned short>()> ports;
  // The port of node n while it runs (first choice for a table created there), if known.
  std::function<std::optional<unsigned short>(int)> node_port;
  bool follow_node_hints = true;
};

Reach reach_nodes(Cluster& cluster) {
  return Reach{[&cluster] { return cluster.ports(); },
               [&cluster](int n) -> std::optional<unsigned short> {
                 std::lock_guard lock(cluster.mutex());
                 if (!cluster.node(n).running()) return std::nullopt;
                 return cluster.node(n).port();
               },
               true};
}

// Plays seat 0 of `table` to game_over, reconnecting and following room_moved as needed.
class SeatDriver {
 public:
  SeatDriver(Table& table, Reach reach, std::uint64_t seed)
      : table_(table), reach_(std::move(reach)), rng_(seed) {}

  void run(std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    std::optional<unsigned short> preferred = node_port(table_.home_node);
    while (!table_.over && Clock::now() < deadline) {
      if (!client_ && !connect(preferred, deadline)) break;
      preferred.reset();
      const auto frame = client_->next(1500ms);
      if (!frame) {
        if (client_->closed()) {
          note("connection closed");
          client_.reset();
          ++table_.reconnects;
        } else {
          poke();  // quiet: is the room still here?
        }
        continue;
      }
      if (!handle(*frame, preferred)) {
        client_.reset();
        ++table_.reconnects;
      }
    }
    if (!table_.over && table_.failure.empty()) table_.failure = "no game_over in time";
  }

 private:
  std::optional<unsigned short> node_port(int n) { return reach_.node_port(n); }

  // Keeps the last steps, stamped with the wall clock the nodes' logs use.
  void note(std::string what) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%02d:%02d:%02d.%03d ", utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<int>(ms));
    table_.trail.push_back(stamp + std::move(what));
    if (table_.trail.size() > 40) table_.trail.pop_front();
  }

  static std::string brief(const Json& frame) {
    std::string out = frame.value("type", "?");
    if (frame.contains("code")) out += " " + frame.value("code", "");
    if (frame.contains("seq")) out += " seq " + frame["seq"].dump();
    if (frame.contains("to_act")) out += " to_act " + frame["to_act"].dump();
    if (frame.contains("status")) out += " status " + frame["status"].dump();
    if (frame.contains("node")) out += " node " + frame["node"].dump();
    if (frame.contains("moves")) out += " moves " + std::to_string(frame["moves"].size());
    return out;
  }

  // Connects to a node that serves the room: `preferred` first, then any running one,
  // following room_moved. False when the deadline passes.
  bool connect(std::optional<unsigned short> preferred, Clock::time_point deadline) {
    std::size_t next = 0;
    while (Clock::now() < deadline) {
      const auto ports = reach_.ports();
      unsigned short port = 0;
      if (preferred) {
        port = *preferred;
        preferred.reset();
      } else if (!ports.empty()) {
        port = ports[next++ % ports.size()];
      }
      try {
        auto client = std::make_unique<TestClient>("127.0.0.1", port);
        const Json welcome =
            client->request({{"type", "hello"}, {"token", table_.token}, {"protocol", 1}}, 2s);
        if (welcome.value("type", "") != "welcome") {
          note("port " + std::to_string(port) + ": hello answered " + brief(welcome));
          std::this_thread::sleep_for(100ms);
          continue;
        }
        const Json probe = client->request({{"type", "legal_moves"}, {"room", table_.room}}, 2s);
        const std::string code = probe.value("code", "");
        note("port " + std::to_string(port) + ": probe answered " + brief(probe));
        if (code == "room_moved") {
          preferred = port_of(probe.value("node", ""));
          if (!preferred) std::this_thread::sleep_for(200ms);  // between owners
          continue;
        }
        // No answer in time (a node paused, or too slow) says nothing about the room.
        if (code == "no_such_room" || probe.value("type", "") == "timeout") {
          std::this_thread::sleep_for(200ms);
          continue;
        }
        // This node serves the room: the resume pushed its room and state.
        for (Json& frame : client->pending()) pending_.push_back(std::move(frame));
        client->pending().clear();
        client_ = std::move(client);
        // A room_moved pushed before the probe's answer (the node let the room go between
        // the resume and the probe, and forwarded the probe to the new owner) means this
        // connection holds no seat: connect again, as the push says.
        bool seated = true;
        for (Json& frame : pending_) {
          if (!handle(frame, preferred)) {
            seated = false;
            break;
          }
        }
        pending_.clear();
        if (seated) return true;
        client_.reset();
        ++table_.reconnects;
      } catch (const std::exception& error) {
        note("port " + std::to_string(port) + ": " + error.what());
        std::this_thread::sleep_for(100ms);  // refused, or a paused node that never answered
      }
    }
    table_.failure = "could not reach the room's node";
    return false;
  }

  std::optional<unsigned short> port_of(const std::string& node) const {
    if (!reach_.follow_node_hints) return std::nullopt;
    const auto colon = node.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    return static_cast<unsigned short>(std::stoi(node.substr(colon + 1)));
  }

  void poke() {
    note("quiet: poke");
    moves_at_poke_ = moves_sent_;
    client_->send({{"type", "legal_moves"}, {"room", table_.room}, {"id", "poke"}});
  }

  // Returns false when the connection must be replaced.
  bool handle(const Json& frame, std::optional<unsigned short>& preferred) {
    const std::string type = frame.value("type", "");
    note("got " + brief(frame));
    if (type == "error" && frame.value("code", "") == "room_moved") {
      preferred = port_of(frame.value("node", ""));
      return false;
    }
    // The room answers a poke after every push it sent before: if it waits for this seat
    // and no move went out since the poke, the prompt never arrived. Resume afresh.
    if (type == "legal_moves" && frame.value("re", "") == "poke" && moves_sent_ == moves_at_poke_ &&
        !frame.value("moves", Json::array()).empty()) {
      ++table_.resyncs;
      note("the room waits for this seat, but no prompt came: resume afresh");
      return false;
    }
    if ((type == "state" || type == "game_over") && frame.value("room", "") == table_.room) {
      table_.frames.push_back(frame);
    }
    if (type == "game_over" && frame.value("room", "") == table_.room) {
      table_.over = true;
      return true;
    }
    // A player who was away when the game ended (on a paused node, or reconnecting) learns it
    // from the resume: the room push says the room is finished, and the state push is the
    // final view (PROTOCOL.md, "Resume"); game_over went out while they were gone, as the web
    // client's reload finds it.
    if (type == "room" && frame.value("room", "") == table_.room &&
        frame.value("status", "") == "finished") {
      note("the room is finished");
      table_.over = true;
      return true;
    }
    if (type != "state" || frame.value("room", "") != table_.room) return true;
    const Json& prompt = frame["prompt"];
    if (!prompt.is_object() || !prompt.contains("legal") || prompt["legal"].empty()) return true;
    const Json& legal = prompt["legal"];
    std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
    const Json move = legal[pick(rng_)];
    const std::int64_t seq = frame["seq"];
    std::this_thread::sleep_for(kMoveDelay);  // thinking
    Json reply;
    ++moves_sent_;
    try {
      reply = client_->request(
          {{"type", "move"}, {"room", table_.room}, {"move", move}, {"seq", seq}}, 3s);
    } catch (const std::exception& error) {
      note("move at seq " + std::to_string(seq) + ": " + error.what());
      return false;
    }
    note("move at seq " + std::to_string(seq) + " answered " + brief(reply));
    // Pushes that arrived while waiting for the reply are handled next.
    for (Json& pushed : client_->pending()) pending_after_.push_back(std::move(pushed));
    client_->pending().clear();
    if (reply.value("type", "") == "ok") {
      table_.acked.push_back({reply["seq"].get<std::int64_t>(), move});
      table_.acked_at.push_back(Clock::now());
    } else if (reply.value("code", "") == "room_moved") {
      preferred = port_of(reply.value("node", ""));
      return false;
    } else if (reply.value("type", "") == "timeout") {
      // No answer in time: the move may or may not have been played. A fresh resume says
      // which (its state), as a client's reconnect would.
      return false;
    }
    std::vector<Json> later;
    later.swap(pending_after_);
    for (const Json& pushed : later) {
      if (!handle(pushed, preferred)) return false;
    }
    return true;
  }

  Table& table_;
  Reach reach_;
  std::mt19937_64 rng_;
  std::unique_ptr<TestClient> client_;
  std::vector<Json> pending_;
  std::vector<Json> pending_after_;
  std::int64_t moves_sent_ = 0;
  std::int64_t moves_at_poke_ = -1;
};

// The leak scan: replays the stored log of `game` and checks each of `frames` (what `seat`'s
// client received: state and game_over frames, in any order) against the state at its seq.
std::string scan_frames(const server::RoomHistory& history, const server::GameRecord& game,
                        const std::vector<Json>& frames, int seat) {
  const GameInfo* info = find_game(history.room.kind);
  auto mirror = info->create(history.room.game_options, history.room.seats, game.seed);
  std::vector<const Json*> sorted;
  for (const Json& f : frames) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Json* a, const Json* b) {
    return a->value("seq", std::int64_t{0}) < b->value("seq", std::int64_t{0});
  });
  std::int64_t at = game.start_seq;
  auto next_move = game.moves.begin();
  for (const Json* frame : sorted) {
    const std::int64_t seq = frame->value("seq", at);
    while (at < seq && next_move != game.moves.end()) {
      if (!mirror->apply(next_move->seat, next_move->move).ok()) return "the log does not replay";
      ++next_move;
      ++at;
    }
    if ((*frame)["type"] == "game_over") continue;  // the end reveals every hand, by the rules
    if (auto leak = scan_frame(*frame, *mirror, seat); !leak.empty()) return leak;
  }
  return {};
}

// What the store holds for one table, checked against what its client saw.
std::string check_table(const Table& table, const server::RoomHistory& history) {
  if (history.games.size() != 1)
    return "expected one game, the store has " + std::to_string(history.games.size());
  const server::GameRecord& game = history.games[0];
  if (!game.finished_ms) return "the store does not have the game finished";
  std::map<std::int64_t, const server::MoveRecord*> by_seq;
  std::int64_t expected = game.start_seq + 1;
  std::int64_t last_epoch = 0;
  for (const server::MoveRecord& m : game.moves) {
    if (m.seq != expected) return "moves not contiguous at seq " + std::to_string(m.seq);
    if (m.epoch < last_epoch) {
      return "move seq " + std::to_string(m.seq) + " stored at epoch " + std::to_string(m.epoch) +
             " after epoch " + std::to_string(last_epoch) + ": two owners accepted moves";
    }
    last_epoch = m.epoch;
    by_seq[m.seq] = &m;
    ++expected;
  }
  for (const Acked& a : table.acked) {
    const auto found = by_seq.find(a.seq);
    if (found == by_seq.end()) return "move ok'd at seq " + std::to_string(a.seq) + " is lost";
    if (found->second->seat != 0 || found->second->move != a.move) {
      return "seq " + std::to_string(a.seq) + " holds " + found->second->move.dump() + " at seat " +
             std::to_string(found->second->seat) + ", but the client got ok for " + a.move.dump();
    }
  }
  return scan_frames(history, game, table.frames, 0);
}

// What each case needs: a temporary directory (the nodes' logs; kept when the case fails), a
// real PostgreSQL and a real Redis, then the nodes; and after the games, what the store holds.
class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresServer::missing_binaries().empty() || !RedisServer::available()) {
      GTEST_FAIL() << "PostgreSQL 15 and redis-server are needed (make deps installs them)";
    }
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::temp_directory_path() / ("parlor-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    store_.reset();
    cluster_.reset();
    if (HasFailure()) return;
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // PostgreSQL (a database of its own), Redis and kNodes nodes given `extra` flags besides
  // the cluster's own; the nodes are started by the caller (Cluster::start_all).
  Cluster& make_cluster(const std::string& database, const std::vector<std::string>& extra = {}) {
    postgres_ = std::make_unique<PostgresServer>();
    store_url_ = postgres_->create_database(database);
    redis_ = std::make_unique<RedisServer>();
    cluster_ = std::make_unique<Cluster>(dir_, store_url_, redis_->url(), extra);
    return *cluster_;
  }
  PostgresServer& postgres() { return *postgres_; }
  RedisServer& redis() { return *redis_; }
  // The store as the nodes wrote it, opened beside them (not exclusively).
  server::PostgresStore& store() {
    if (!store_) {
      server::PostgresStoreOptions options;
      options.url = store_url_;
      options.exclusive = false;
      store_ = std::make_unique<server::PostgresStore>(options);
    }
    return *store_;
  }

  fs::path dir_;

 private:
  std::unique_ptr<PostgresServer> postgres_;
  std::string store_url_;
  std::unique_ptr<RedisServer> redis_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<server::PostgresStore> store_;
};

// The driver's last steps, one a line.
std::string trail_of(const Table& table) {
  std::string out = "the driver's last steps:\n";
  for (const std::string& step : table.trail) out += "  " + step + "\n";
  return out;
}

// The driver's last steps and every node's lines about its room: what a failed table shows.
std::string driver_story(const Table& table, Cluster& cluster) {
  return trail_of(table) + "the nodes' lines about the room:\n" + cluster.lines_about(table.room);
}

TEST_F(ClusterTest, GamesSurviveAKilledNodeAPausedNodeAndARedisRestart) {
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the clients' choices)" << std::endl;
  Cluster& cluster = make_cluster("cluster");
  ASSERT_EQ(cluster.start_all(), "");

  // Rooms on every node: a player creates one on its node and fills it with bots.
  std::vector<Table> tables;
  for (int n = 0; n < kNodes; ++n) {
    for (int r = 0; r < kRoomsPerNode; ++r) {
      TestClient client("127.0.0.1", cluster.node(n).port());
      Table table;
      table.home_node = n;
      ASSERT_EQ(open_table_with_bots(client, "p" + std::to_string(n) + std::to_string(r), table),
                "");
      tables.push_back(std::move(table));
    }
  }
  // A token from one node is good on another, a room on another node is served through
  // this one (its owner answers), and every node lists every node's public rooms.
  {
    const Table& elsewhere = tables.front();  // on node0
    TestClient client("127.0.0.1", cluster.node(1).port());
    const Json welcome =
        client.request({{"type", "hello"}, {"token", elsewhere.token}, {"protocol", 1}});
    ASSERT_EQ(welcome["type"], "welcome") << welcome;
    const Json answer = client.request({{"type", "legal_moves"}, {"room", elsewhere.room}});
    EXPECT_NE(answer.value("code", ""), "room_moved") << answer;
    EXPECT_NE(answer.value("code", ""), "no_such_room") << answer;
    const Json unknown = client.request({{"type", "legal_moves"}, {"room", "nosuchroom"}});
    EXPECT_EQ(unknown["code"], "no_such_room") << unknown;
    // Other nodes' rooms reach the list within about a quarter of a second.
    std::this_thread::sleep_for(1s);
    const Json rooms = client.request({{"type", "list_rooms"}});
    std::set<std::string> listed;
    for (const Json& room : rooms["rooms"]) listed.insert(room.value("room", ""));
    for (const Table& table : tables) EXPECT_TRUE(listed.contains(table.room)) << rooms;
    // The lobby push spans the cluster too: the snapshot holds every node's rooms, and a
    // room opened on another node is pushed here.
    const Json snapshot = client.request({{"type", "subscribe_lobby"}});
    std::set<std::string> shown;
    for (const Json& room : snapshot["rooms"]) shown.insert(room.value("room", ""));
    for (const Table& table : tables) EXPECT_TRUE(shown.contains(table.room)) << snapshot;
    TestClient host("127.0.0.1", cluster.node(0).port());
    host.hello("lobby-host");
    const Json opened = host.request({{"type", "create_room"}, {"kind", "spades"}});
    ASSERT_EQ(opened["type"], "room_created") << opened;
    const auto added = client.next_of("room_added", 5s);
    ASSERT_TRUE(added) << "no room_added for a room opened on another node";
    EXPECT_EQ((*added)["rooms"][0]["room"], opened["room"]) << *added;
    EXPECT_EQ(host.request({{"type", "leave_room"}, {"room", opened["room"]}})["type"], "left");
  }
  // Start each game from its driver's own connection (a fresh resume gets the first state).
  for (Table& table : tables) {
    TestClient client("127.0.0.1", cluster.node(table.home_node).port());
    client.request({{"type", "hello"}, {"token", table.token}, {"protocol", 1}});
    ASSERT_EQ(client.request({{"type", "start"}, {"room", table.room}})["type"], "ok");
  }

  std::vector<std::thread> drivers;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    drivers.emplace_back(
        [&, i] { SeatDriver(tables[i], reach_nodes(cluster), seed + i).run(120s); });
  }

  // 1. A node dies.
  std::this_thread::sleep_for(1500ms);
  Clock::time_point killed_at;
  {
    std::lock_guard lock(cluster.mutex());
    EXPECT_EQ(cluster.node(0).kill_now(), "") << "node0 had ended before the kill";
    killed_at = Clock::now();
  }
  // 2. A node freezes past its lease and comes back.
  std::this_thread::sleep_for(4s);
  cluster.node(1).pause();
  std::this_thread::sleep_for(kLease * 3);
  cluster.node(1).resume();
  // 3. Redis restarts empty.
  std::this_thread::sleep_for(2s);
  redis().kill();
  std::this_thread::sleep_for(1s);
  redis().start();

  for (auto& driver : drivers) driver.join();

  // How soon node0's rooms were played again: the first move acknowledged after the kill.
  // The target is the lease plus two seconds, plus the turns of the bots before the client's
  // (up to three moves of kMoveDelay) and its own thinking.
  for (const Table& table : tables) {
    if (table.home_node != 0) continue;
    const auto after = std::find_if(table.acked_at.begin(), table.acked_at.end(),
                                    [&](Clock::time_point t) { return t > killed_at; });
    if (after == table.acked_at.end()) continue;  // its game had ended before the kill
    const auto outage = std::chrono::duration_cast<std::chrono::milliseconds>(*after - killed_at);
    std::cout << "room " << table.room << ": first move acknowledged " << outage.count()
              << " ms after its node was killed" << std::endl;
    EXPECT_LE(outage, kLease + 2s + 4 * kMoveDelay) << cluster.ownership_story();
  }
  int taken_over = 0;
  for (const Table& table : tables) {
    SCOPED_TRACE("room " + table.room + " (created on node" + std::to_string(table.home_node) +
                 ", " + std::to_string(table.reconnects) + " reconnects, " +
                 std::to_string(table.resyncs) + " resyncs, " + std::to_string(table.acked.size()) +
                 " moves ok'd)");
    if (table.resyncs > 0) {
      // Recovered, as a player's reconnect would; shown so that a push that went missing is
      // seen and looked into.
      std::cout << "room " << table.room << ": its client resumed afresh " << table.resyncs
                << " time(s) to see a prompt; " << driver_story(table, cluster) << std::flush;
    }
    if (!table.over) {
      ADD_FAILURE() << table.failure << "\n"
                    << driver_story(table, cluster) << "the latest lines:\n"
                    << cluster.logs();
    }
    const auto history = store().load_room(table.room);
    ASSERT_TRUE(history);
    if (history->room.epoch > 1) ++taken_over;
    EXPECT_EQ(check_table(table, *history), "");
  }
  // node0's rooms at least moved (node1's did too unless its games had ended first).
  EXPECT_GE(taken_over, kRoomsPerNode) << cluster.logs();
  // The paused node is alive and well: it let its rooms go rather than failing.
  EXPECT_EQ(::kill(cluster.node(1).pid(), 0), 0) << "node1 died after its pause";
  std::cout << tables.size() << " games finished, " << taken_over << " rooms taken over\n"
            << cluster.ownership_story() << std::endl;
}

// Any connection reaches any room: two players and a spectator connected to the two nodes
// that do NOT hold their room play it through links, and when the room's node is killed
// they carry on, on the same connections, once another node has taken the room over (it
// invites them to resume there). A second spectator sits on the room's node and resumes on
// another. Later the room's new node is killed too: whoever was connected to it resumes on
// the last node, which takes the room over in turn. Every frame each player and spectator
// received is checked for cards they may not see.
TEST_F(ClusterTest, PlayersOnOtherNodesPlayARoomThroughLinksAndOutliveItsNode) {
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the players' choices)" << std::endl;
  std::mt19937_64 rng(seed);
  Cluster& cluster = make_cluster("links");
  ASSERT_EQ(cluster.start_all(), "");

  // The room lives on node0; its creator adds two bots and then plays from node2.
  std::string room;
  std::string creator_token;
  {
    TestClient creator("127.0.0.1", cluster.node(0).port());
    creator_token = creator.hello("ada")["token"];
    const Json created = creator.request(
        {{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"grace", 600}}}});
    ASSERT_EQ(created["type"], "room_created") << created;
    room = created["room"];
    for (int seat = 2; seat < 4; ++seat) {
      ASSERT_EQ(creator.request({{"type", "add_bot"},
                                 {"room", room},
                                 {"seat", seat},
                                 {"strategy", "greedy"}})["type"],
                "ok");
    }
  }
  std::vector<std::unique_ptr<TestClient>> players;
  players.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(2).port()));
  ASSERT_EQ(
      players[0]->request({{"type", "hello"}, {"token", creator_token}, {"protocol", 1}})["type"],
      "welcome");
  players.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(1).port()));
  const std::string bea_token = players[1]->hello("bea")["token"];
  const Json joined = players[1]->request({{"type", "join_room"}, {"room", room}, {"seat", 1}});
  ASSERT_EQ(joined["type"], "joined") << joined;
  // Two spectators: one through node2, which lives on; one on node0 itself, which dies with
  // the room's node and resumes through node1. Both get their places back from the new owner.
  auto spectator = std::make_unique<TestClient>("127.0.0.1", cluster.node(2).port());
  const std::string cy_token = spectator->hello("cy")["token"];
  ASSERT_EQ(spectator->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  auto local_spectator = std::make_unique<TestClient>("127.0.0.1", cluster.node(0).port());
  const std::string local_token = local_spectator->hello("dee")["token"];
  ASSERT_EQ(local_spectator->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  // What each spectator is pushed, and how much of it came before node0 died.
  std::vector<std::vector<Json>> watched(2);
  std::vector<std::size_t> before_kill(2, 0);
  auto watch = [&](TestClient& client, std::vector<Json>& frames) {
    while (auto frame = client.next(1ms)) {
      if (frame->value("room", "") == room) frames.push_back(std::move(*frame));
    }
  };
  // Each connection's node and token (players, then spectators): a connection whose node was
  // killed the second time resumes on the last node standing.
  const std::vector<std::string> tokens{creator_token, bea_token, cy_token, local_token};
  std::vector<int> node_of{2, 1, 2, 0};
  int survivor = -1;  // after the second kill
  auto resume_on_survivor = [&] {
    const std::vector<std::unique_ptr<TestClient>*> all{&players[0], &players[1], &spectator,
                                                        &local_spectator};
    for (std::size_t c = 0; c < all.size(); ++c) {
      if (survivor < 0 || node_of[c] == survivor || !(*all[c])->closed()) continue;
      *all[c] = std::make_unique<TestClient>("127.0.0.1", cluster.node(survivor).port());
      node_of[c] = survivor;
      const Json welcome =
          (*all[c])->request({{"type", "hello"}, {"token", tokens[c]}, {"protocol", 1}});
      EXPECT_EQ(welcome["type"], "welcome") << welcome;
    }
  };

  // Each player answers its own prompts with a random legal move; node0 dies after a few.
  std::vector<std::vector<Json>> seen(2);
  std::vector<bool> over(2, false);
  int moves = 0;
  bool killed = false;
  const auto deadline = Clock::now() + 90s;
  while (!(over[0] && over[1]) && Clock::now() < deadline) {
    resume_on_survivor();
    watch(*spectator, watched[0]);
    watch(*local_spectator, watched[1]);
    for (int p = 0; p < 2; ++p) {
      auto frame = players[static_cast<std::size_t>(p)]->next(50ms);
      if (!frame) continue;
      const std::string type = frame->value("type", "");
      if ((type == "state" || type == "game_over") && frame->value("room", "") == room) {
        seen[static_cast<std::size_t>(p)].push_back(*frame);
      }
      if (type == "game_over") over[static_cast<std::size_t>(p)] = true;
      if (type != "state") continue;
      const Json& prompt = (*frame)["prompt"];
      if (!prompt.is_object() || !prompt.contains("legal") || prompt["legal"].empty()) continue;
      const Json& legal = prompt["legal"];
      std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
      players[static_cast<std::size_t>(p)]->send({{"type", "move"},
                                                  {"room", room},
                                                  {"move", legal[pick(rng)]},
                                                  {"seq", (*frame)["seq"]},
                                                  {"id", "m" + std::to_string(++moves)}});
      if (killed && survivor < 0 && moves >= 10) {
        // The room's second node: the owner PostgreSQL has for it now.
        const std::string owner =
            postgres()
                .sql("links", "SELECT owner FROM rooms WHERE id = '" + room + "'")
                .value_or("");
        if (owner == "node1" || owner == "node2") {
          const int second = owner == "node1" ? 1 : 2;
          {
            std::lock_guard lock(cluster.mutex());
            ASSERT_EQ(cluster.node(second).kill_now(), "");
          }
          survivor = 3 - second;
        }
      }
      if (moves == 6 && !killed) {
        {
          std::lock_guard lock(cluster.mutex());
          ASSERT_EQ(cluster.node(0).kill_now(), "");
        }
        killed = true;
        watch(*spectator, watched[0]);
        for (std::size_t s = 0; s < 2; ++s) before_kill[s] = watched[s].size();
        // While the room's node is dead and not yet replaced (a lease), a request for it is
        // answered with its `re` (room_moved: send it again), not lost with the link.
        std::this_thread::sleep_for(100ms);
        const Json answer = spectator->request({{"type", "legal_moves"}, {"room", room}}, 3s);
        EXPECT_EQ(answer.value("code", ""), "room_moved") << answer;
        // The spectator whose connection died with node0 comes back through node1.
        local_spectator = std::make_unique<TestClient>("127.0.0.1", cluster.node(1).port());
        node_of[3] = 1;
        EXPECT_EQ(local_spectator->request(
                      {{"type", "hello"}, {"token", local_token}, {"protocol", 1}})["type"],
                  "welcome");
      }
    }
  }
  ASSERT_TRUE(killed);
  EXPECT_TRUE(over[0] && over[1]) << "no game_over on both connections\n" << cluster.logs();
  EXPECT_FALSE(players[0]->closed());
  EXPECT_FALSE(players[1]->closed());
  // Both spectators watch the game to its end on the new owner, without asking again, and
  // see no hand.
  for (auto until = Clock::now() + 5s; Clock::now() < until;) {
    resume_on_survivor();
    watch(*spectator, watched[0]);
    watch(*local_spectator, watched[1]);
    const auto ended = [](const std::vector<Json>& frames) {
      return std::any_of(frames.begin(), frames.end(),
                         [](const Json& f) { return f["type"] == "game_over"; });
    };
    if (ended(watched[0]) && ended(watched[1])) break;
    std::this_thread::sleep_for(50ms);
  }
  for (std::size_t s = 0; s < 2; ++s) {
    const auto has = [&](const std::string& type) {
      return std::any_of(watched[s].begin() + static_cast<std::ptrdiff_t>(before_kill[s]),
                         watched[s].end(), [&](const Json& f) { return f["type"] == type; });
    };
    EXPECT_TRUE(has("state")) << "spectator " << s << " got no state from the new owner\n"
                              << cluster.logs();
    EXPECT_TRUE(has("game_over")) << "spectator " << s << " did not see the game end\n"
                                  <<
        [&] {
          std::string types;
          for (const Json& f : watched[s]) {
            types += f.value("type", "") + "@" + std::to_string(f.value("seq", -1)) + " ";
          }
          return types;
        }() << "\n" << cluster.ownership_story();
  }

  // The store: one finished game, taken over twice; no frame showed another seat's cards.
  const auto history = store().load_room(room);
  ASSERT_TRUE(history);
  EXPECT_GE(survivor, 0) << "the room's second node was never killed";
  EXPECT_GE(history->room.epoch, 3) << "two takeovers\n" << cluster.ownership_story();
  ASSERT_EQ(history->games.size(), 1U);
  const server::GameRecord& game = history->games[0];
  EXPECT_TRUE(game.finished_ms.has_value());
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(scan_frames(*history, game, seen[static_cast<std::size_t>(p)], p), "")
        << "seat " << p;
  }
  for (const auto& frames : watched) {
    EXPECT_EQ(scan_frames(*history, game, frames, kSpectator), "") << "a spectator";
  }
}

// PostgreSQL stops answering mid-game (the database refuses connections and its sessions are
// cut): the move whose write fails is answered internal_error with its re and never happened,
// the room is paused for its players, and a move meanwhile is refused. Once the database
// answers again the room's node loads it again from what was stored (the takeover path, at a
// new epoch) and pushes the state to the player, who plays on from the last stored move.
// A token revoked on one node is refused by every node, also by one that knew the player
// with its old token; the new token and a new name reach the other nodes through the store.
TEST_F(ClusterTest, ARevokedTokenIsRefusedByEveryNodeAndARenameReachesThem) {
  Cluster& cluster = make_cluster("revoke");
  ASSERT_EQ(cluster.start_all(), "");
  auto hello = [](TestClient& client, const std::string& token) {
    return client.request({{"type", "hello"}, {"token", token}, {"protocol", 1}});
  };
  TestClient owner("127.0.0.1", cluster.node(0).port());
  const Json welcome = owner.hello("ada");
  const std::string old_token = welcome["token"];
  {
    TestClient elsewhere("127.0.0.1", cluster.node(1).port());
    ASSERT_EQ(hello(elsewhere, old_token)["player"], welcome["player"]);
  }  // node1 knows the player now, under its old token
  // node1's resume reaches node0 on its own time and replaces the player's connection there:
  // owner's. Once that has happened it cannot replace the next one too.
  for (const auto until = std::chrono::steady_clock::now() + 5s;
       !owner.closed() && std::chrono::steady_clock::now() < until;) {
    owner.next(100ms);
  }
  ASSERT_TRUE(owner.closed()) << "node1's resume never replaced the connection on node0";
  TestClient again("127.0.0.1", cluster.node(0).port());
  ASSERT_EQ(hello(again, old_token)["type"], "welcome");  // owner's connection is replaced
  const Json answer = again.request({{"type", "revoke_token"}});
  ASSERT_EQ(answer["type"], "token") << answer;
  const std::string new_token = answer["token"];
  ASSERT_EQ(again.request({{"type", "rename"}, {"name", "ada b"}})["type"], "ok");

  for (int n = 0; n < kNodes; ++n) {
    TestClient thief("127.0.0.1", cluster.node(n).port());
    EXPECT_EQ(hello(thief, old_token)["code"], "invalid_token") << "node" << n;
  }
  TestClient moved("127.0.0.1", cluster.node(1).port());
  ASSERT_EQ(hello(moved, new_token)["player"], welcome["player"]);
  const Json created = moved.request({{"type", "create_room"}, {"kind", "bigtwo"}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const auto push = moved.next_of("room");
  ASSERT_TRUE(push);
  EXPECT_EQ((*push)["seats"][0]["name"], "ada b") << "node1 took the new name from the store";
}

// The test as another node: a link to a node (its secret read where the nodes keep it),
// speaking link messages (server/cluster/link_message.h) in WebSocket binary frames.
class FakePeer {
 public:
  FakePeer(unsigned short port, const std::string& secret) : ws_(port) {
    head_ = ws_.request_head(std::string("GET ") + std::string(server::kLinkPath) +
                             " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                             "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                             "Sec-WebSocket-Key: " +
                             std::string(kWebSocketKey) + "\r\n" +
                             std::string(server::kLinkSecretHeader) + ": " + secret + "\r\n\r\n");
  }
  const std::string& head() const { return head_; }
  void send(const server::link::Message& message) {
    const std::string bytes = server::link::encode(message);
    std::string payload;
    for (int i = 0; i < 4; ++i)
      payload.push_back(static_cast<char>((bytes.size() >> (8 * i)) & 0xFF));
    payload += bytes;
    RawWsClient::Out out;
    out.opcode = 2;
    out.payload = std::move(payload);
    ws_.send(out);
  }
  // The next link message from the node, or nullopt when none comes within `timeout`.
  std::optional<server::link::Message> next(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (queue_.empty()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      auto frame = ws_.next(left);
      if (!frame) return std::nullopt;
      if (frame->opcode != 2) continue;  // pings
      std::string_view data = frame->payload;
      while (data.size() >= 4) {
        std::size_t size = 0;
        for (int i = 0; i < 4; ++i)
          size |= static_cast<std::size_t>(static_cast<unsigned char>(data[i])) << (8 * i);
        data.remove_prefix(4);
        if (data.size() < size) break;
        if (auto message = server::link::decode(data.substr(0, size))) queue_.push_back(*message);
        data.remove_prefix(size);
      }
    }
    auto message = std::move(queue_.front());
    queue_.pop_front();
    return message;
  }

 private:
  RawWsClient ws_;
  std::string head_;
  std::deque<server::link::Message> queue_;
};

// A player reconnects on node1 while an older connection of theirs is still being torn
// down elsewhere; that connection's late resume and late request (here sent by the test, as
// the old connection's node) reach the room's node after the newer connection's resume.
// The room's node must keep the newer connection: it closes the older one (4000, "replaced")
// and neither pushes it the player's room nor answers its request, and the newer connection
// plays on undisturbed. Deterministic: the link is ordered, and the newer connection's
// request after the stale messages is answered over the same link as any close of it would
// have been sent.
TEST_F(ClusterTest, ALateResumeOfAnOlderConnectionDoesNotDisplaceTheNewerOne) {
  Cluster& cluster = make_cluster("superseded");
  ASSERT_EQ(cluster.start_all(), "");
  TestClient first("127.0.0.1", cluster.node(0).port());
  const Json welcome = first.hello("ada");
  const std::string token = welcome["token"];
  const std::string player = welcome["player"];
  const Json created =
      first.request({{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"grace", 600}}}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const std::string room = created["room"];

  // The newer connection, on node1: its resume reaches node0, which closes `first`.
  TestClient newer("127.0.0.1", cluster.node(1).port());
  ASSERT_EQ(newer.request({{"type", "hello"}, {"token", token}, {"protocol", 1}})["type"],
            "welcome");
  ASSERT_TRUE(first.wait_closed(10s)) << "node1's resume never reached node0";
  EXPECT_EQ(first.close_code(), 4000);
  ASSERT_EQ(newer.request({{"type", "legal_moves"}, {"room", room}}).value("code", ""),
            "not_started")
      << "the newer connection reaches the room";

  const std::string secret =
      postgres().sql("superseded", "SELECT secret FROM cluster_secret").value_or("");
  ASSERT_FALSE(secret.empty());
  FakePeer old_node(cluster.node(0).port(), secret);
  ASSERT_NE(old_node.head().find(" 101 "), std::string::npos) << old_node.head();
  EXPECT_NE(old_node.head().find(std::string(server::link::kLinkFormatHeader) + ": " +
                                 std::string(server::link::kLinkFormat)),
            std::string::npos)
      << "the node announces its link format\n"
      << old_node.head();
  // Generation 1 is the player's first hello (the one that named them): older than any
  // hello with the token since.
  const server::link::PlayerRef stale{player, "ada", {}, 1};
  constexpr std::uint64_t kStaleResume = 901;
  constexpr std::uint64_t kStaleRequest = 902;
  old_node.send(server::link::Message{server::link::Kind::kResume, kStaleResume, stale, 0, ""});
  old_node.send(
      server::link::Message{server::link::Kind::kRequest, kStaleRequest, stale, 0,
                            Json{{"type", "legal_moves"}, {"room", room}, {"id", "late"}}.dump()});
  std::set<std::uint64_t> closed;
  std::vector<std::string> other;
  for (const auto until = Clock::now() + 10s; closed.size() < 2 && Clock::now() < until;) {
    auto message = old_node.next(500ms);
    if (!message) continue;
    if (message->kind == server::link::Kind::kClose) {
      EXPECT_EQ(message->code, 4000) << message->body;
      closed.insert(message->connection);
    } else {
      other.push_back(std::string(1, static_cast<char>(message->kind)) + " " + message->body);
    }
  }
  EXPECT_EQ(closed, (std::set<std::uint64_t>{kStaleResume, kStaleRequest}))
      << "the older connection's resume and request must be refused with a close";
  for (const std::string& message : other) ADD_FAILURE() << "the older connection got " << message;

  // The newer connection was not replaced: its next request is answered over the link any
  // close of it would have taken first.
  const Json after = newer.request({{"type", "legal_moves"}, {"room", room}});
  EXPECT_EQ(after.value("code", ""), "not_started") << after;
  EXPECT_FALSE(newer.closed()) << newer.close_code() << " " << newer.close_reason();
  const Json chat = newer.request({{"type", "chat"}, {"room", room}, {"text", "still here"}});
  EXPECT_EQ(chat["type"], "ok") << chat;
}

// A player seated in a room on node0, connected to node1, renames: a member connected to
// node2 gets the room's `room` push with the new name, and a lobby subscriber on node2 gets
// the room's summary with it, without the player sending anything more.
TEST_F(ClusterTest, ARenameIsPushedByTheRoomsOfEveryNode) {
  Cluster& cluster = make_cluster("rename");
  ASSERT_EQ(cluster.start_all(), "");
  TestClient host("127.0.0.1", cluster.node(0).port());
  host.hello("ada");
  const Json created = host.request({{"type", "create_room"}, {"kind", "bigtwo"}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const std::string room = created["room"];
  TestClient bea("127.0.0.1", cluster.node(1).port());
  bea.hello("bea");
  ASSERT_EQ(bea.request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
  TestClient cy("127.0.0.1", cluster.node(2).port());
  cy.hello("cy");
  ASSERT_EQ(cy.request({{"type", "join_room"}, {"room", room}, {"seat", 2}})["type"], "joined");
  TestClient lobby("127.0.0.1", cluster.node(2).port());
  lobby.hello("dee");
  ASSERT_EQ(lobby.request({{"type", "subscribe_lobby"}})["type"], "lobby");

  ASSERT_EQ(bea.request({{"type", "rename"}, {"name", "bea b"}})["type"], "ok");
  // `seat_name(frame)`: seat 1's name in a summary of the room, if the frame carries one.
  const auto seat_name = [&](const Json& summary) -> std::string {
    if (summary.value("room", "") != room || !summary.contains("seats")) return "";
    const Json& seat = summary["seats"][1];
    return seat.is_object() ? seat.value("name", "") : "";
  };
  bool pushed = false;
  for (const auto until = Clock::now() + 10s; !pushed && Clock::now() < until;) {
    auto frame = cy.next(200ms);
    if (frame && frame->value("type", "") == "room" && seat_name(*frame) == "bea b") pushed = true;
  }
  EXPECT_TRUE(pushed) << "the member on node2 never saw the new name\n"
                      << cluster.lines_about(room);
  bool listed = false;
  for (const auto until = Clock::now() + 10s; !listed && Clock::now() < until;) {
    auto frame = lobby.next(200ms);
    if (!frame || !frame->contains("rooms")) continue;
    for (const Json& summary : (*frame)["rooms"]) {
      if (seat_name(summary) == "bea b") listed = true;
    }
  }
  EXPECT_TRUE(listed) << "node2's lobby never showed the new name";
}

TEST_F(ClusterTest, APostgresOutagePausesARoomThatGoesOnOnceTheStoreAnswers) {
  Cluster& cluster = make_cluster("outage");
  ASSERT_EQ(cluster.start_all(), "");

  TestClient client("127.0.0.1", cluster.node(0).port());
  Table table;
  ASSERT_EQ(open_table_with_bots(client, "ada", table), "");
  ASSERT_EQ(client.request({{"type", "start"}, {"room", table.room}})["type"], "ok");
  std::vector<Json> acked;  // the moves of seat 0 that got ok
  auto play_first_legal = [&](const Json& state) {
    const Json move = state["prompt"]["legal"][0];
    const Json answer = client.request(
        {{"type", "move"}, {"room", table.room}, {"move", move}, {"seq", state["seq"]}});
    if (answer["type"] == "ok") acked.push_back(move);
    return answer;
  };
  for (int turn = 0; turn < 2; ++turn) {
    auto state = next_prompt(client, table.room, 0, 10s);
    ASSERT_TRUE(state) << cluster.logs();
    ASSERT_EQ(play_first_legal(*state)["type"], "ok");
  }

  // Seat 0 is to act (the bots wait for it) when the database goes away.
  auto state = next_prompt(client, table.room, 0, 10s);
  ASSERT_TRUE(state) << cluster.logs();
  postgres().sql("postgres", "ALTER DATABASE outage ALLOW_CONNECTIONS false");
  postgres().sql("postgres",
                 "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                 " WHERE datname = 'outage'");
  const Json failed = play_first_legal(*state);
  EXPECT_EQ(failed.value("code", ""), "internal_error") << failed;
  const auto paused = [&] {
    while (auto f = client.next(3s)) {
      if ((*f)["type"] == "room" && (*f)["status"] == "paused") return true;
    }
    return false;
  };
  EXPECT_TRUE(paused()) << "the players are not told the game is paused\n" << cluster.logs();
  const Json refused = client.request(
      {{"type", "move"}, {"room", table.room}, {"move", (*state)["prompt"]["legal"][0]}});
  EXPECT_EQ(refused.value("code", ""), "not_allowed") << refused;

  // The database answers again: the state comes back at the last stored move, and the game
  // goes on there.
  postgres().sql("postgres", "ALTER DATABASE outage ALLOW_CONNECTIONS true");
  auto resumed = next_prompt(client, table.room, 0, 15s);
  ASSERT_TRUE(resumed) << "no state after the store came back\n"
                       << cluster.ownership_story() << cluster.logs();
  EXPECT_EQ((*resumed)["seq"], (*state)["seq"]) << "the failed move did not happen";
  for (int turn = 0; turn < 2; ++turn) {
    const Json answer = play_first_legal(*resumed);
    ASSERT_EQ(answer["type"], "ok") << answer << "\n" << cluster.ownership_story();
    resumed = next_prompt(client, table.room, 0, 10s);
    ASSERT_TRUE(resumed) << cluster.logs();
  }

  // The store: every move once, in order; seat 0's acknowledged moves are there, the failed
  // one is not; the room was loaded again at a newer epoch.
  const auto history = store().load_room(table.room);
  ASSERT_TRUE(history);
  EXPECT_GT(history->room.epoch, 1) << cluster.ownership_story();
  ASSERT_EQ(history->games.size(), 1U);
  const server::GameRecord& game = history->games[0];
  std::vector<Json> stored_by_seat0;
  std::int64_t expected_seq = game.start_seq + 1;
  for (const server::MoveRecord& m : game.moves) {
    EXPECT_EQ(m.seq, expected_seq++) << "moves are contiguous";
    if (m.seat == 0) stored_by_seat0.push_back(m.move);
  }
  EXPECT_EQ(stored_by_seat0, acked);
}

// A game whose rules live behind HTTP (docs/ENGINES.md) moves with its room like a built-in
// one: every node hosts the same engine (--engine), the room's node dies mid-game, and the
// node that takes the room over rebuilds it from the engine answers the log holds, then goes
// on calling the engine. The player, whose connection died with the node, resumes on another
// node and plays to the engine's end_game.
TEST_F(ClusterTest, AnExternalGameMovesWithItsRoom) {
  ServerProcess engine(fs::path(PARLOR_SOURCE_DIR) / "engines/crazy-eights/server.py",
                       {"--base", "/api/v1/eights"}, dir_, "crazy-eights");
  ASSERT_EQ(engine.start(0), "");
  Cluster& cluster = make_cluster(
      "engine",
      {"--engine",
       "crazy-eights=http://127.0.0.1:" + std::to_string(engine.port()) + "/api/v1/eights",
       // Quicker bots than the other cases (a flag given again wins): the game is
       // long.
       "--bot-delay-ms", "40"});
  ASSERT_EQ(cluster.start_all(), "");

  auto client = std::make_unique<TestClient>("127.0.0.1", cluster.node(0).port());
  const std::string token = client->hello("ada")["token"];
  const Json created = client->request(
      {{"type", "create_room"}, {"kind", "crazy-eights"}, {"options", {{"grace", 600}}}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const std::string room = created["room"];
  for (int seat = 1; seat < 4; ++seat) {
    ASSERT_EQ(
        client->request(
            {{"type", "add_bot"}, {"room", room}, {"seat", seat}, {"strategy", "random"}})["type"],
        "ok");
  }
  ASSERT_EQ(client->request({{"type", "start"}, {"room", room}})["type"], "ok");

  // Seat 0 answers its prompts with their first choice; its node dies after its first move.
  int played = 0;
  bool over = false;
  const auto deadline = Clock::now() + 60s;
  while (!over && Clock::now() < deadline) {
    auto frame = client->next(200ms);
    if (!frame) {
      if (!client->closed()) continue;
      client = std::make_unique<TestClient>("127.0.0.1", cluster.node(1).port());
      ASSERT_EQ(client->request({{"type", "hello"}, {"token", token}, {"protocol", 1}})["type"],
                "welcome");
      continue;
    }
    if ((*frame)["type"] == "game_over" && (*frame)["room"] == room) over = true;
    if ((*frame)["type"] != "state" || (*frame)["room"] != room) continue;
    const Json& prompt = (*frame)["prompt"];
    if (!prompt.is_object() || !prompt.contains("legal") || prompt["legal"].empty()) continue;
    const Json answer = client->request(
        {{"type", "move"}, {"room", room}, {"move", prompt["legal"][0]}, {"seq", (*frame)["seq"]}},
        10s);
    if (answer["type"] != "ok") continue;  // stale: a newer state is on its way
    if (++played == 1) {
      std::lock_guard lock(cluster.mutex());
      ASSERT_EQ(cluster.node(0).kill_now(), "");
    }
  }
  EXPECT_TRUE(over) << "no end_game after the takeover\n"
                    << cluster.ownership_story() << cluster.logs();
  EXPECT_GE(played, 2) << "seat 0 played again on the new node";

  const auto history = store().load_room(room);
  ASSERT_TRUE(history);
  EXPECT_GT(history->room.epoch, 1) << cluster.ownership_story();
  ASSERT_EQ(history->games.size(), 1U);
  EXPECT_TRUE(history->games[0].finished_ms.has_value());
  engine.kill_now();
}

// The chaos test, through the cluster's one address: deploy/cluster/up.sh starts three nodes,
// PostgreSQL, Redis and HAProxy; twenty tables are created and played through the proxy (a
// client at seat 0, three server bots), so their connections and rooms fall on every node.
// Mid-game one node is SIGKILLed, later another is SIGSTOPped past its lease and SIGCONTed.
// Every game must reach game_over, every acknowledged move must be stored exactly once, and
// no frame a client received may show another seat's cards. The clients know only the
// proxy's port. Bounded: about a minute; the cluster is stopped with down.sh.
TEST_F(ClusterTest, ChaosThroughTheProxyTwentyTablesAKilledNodeAndAPausedOne) {
  if (std::system("command -v haproxy >/dev/null 2>&1") != 0) {
    FAIL() << "haproxy is needed (make deps installs it)";
  }
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the clients' choices)" << std::endl;
  const fs::path& dir = dir_;
  const std::string source = PARLOR_SOURCE_DIR;
  const std::string env = "PARLOR_SERVER=" + std::string(PARLOR_SERVER_BINARY) +
                          " PARLOR_LEASE_MS=" + std::to_string(kLease.count()) +
                          " PARLOR_BOT_DELAY_MS=" + std::to_string(kMoveDelay.count()) +
                          " PARLOR_THREADS=1";
  const std::string up = env + " timeout 120 bash " + source + "/deploy/cluster/up.sh --nodes 3 " +
                         "--port 0 --dir " + dir.string() + " > " + (dir / "up.out").string() +
                         " 2> " + (dir / "up.err").string();
  ASSERT_EQ(std::system(up.c_str()), 0) << tail_of(dir / "up.err", 30);
  struct Down {
    std::string command;
    ~Down() { [[maybe_unused]] const int status = std::system(command.c_str()); }
  } down{"timeout 90 bash " + source + "/deploy/cluster/down.sh " + dir.string() +
         " >/dev/null 2>&1"};  // the fixture removes the directory, or keeps it on failure
  Json cluster;
  {
    std::ifstream in(dir / "cluster.json");
    cluster = Json::parse(in);
  }
  const auto proxy = cluster["proxy"]["port"].get<unsigned short>();
  std::vector<pid_t> node_pids;
  for (const Json& node : cluster["nodes"]) node_pids.push_back(node["pid"].get<pid_t>());
  ASSERT_EQ(node_pids.size(), 3U);

  // Where things live (PROTOCOL.md, "Cluster mode"): `?node=ID` reaches that node through the
  // proxy, and the welcome names the node holding the connection.
  const std::set<std::string> names{"node-1", "node-2", "node-3"};
  for (const std::string& name : names) {
    TestClient client("127.0.0.1", proxy, to_node(name));
    EXPECT_EQ(client.hello("where").value("node", ""), name);
  }

  constexpr int kTables = 20;
  std::vector<Table> tables;
  std::map<std::string, std::string> created_on;  // room -> the node its creator was on
  for (int t = 0; t < kTables; ++t) {
    TestClient client("127.0.0.1", proxy);
    Table table;
    ASSERT_EQ(open_table_with_bots(client, "chaos" + std::to_string(t), table), "");
    ASSERT_EQ(client.request({{"type", "start"}, {"room", table.room}})["type"], "ok");
    const std::optional<Json> room = client.next_of("room");
    ASSERT_TRUE(room);
    created_on[table.room] = room->value("node", "");
    tables.push_back(std::move(table));
  }
  // A room is created on its creator's node and names it, in its push and in every node's
  // list (other nodes' rooms come from Redis within about a second).
  {
    TestClient lister("127.0.0.1", proxy, to_node("node-3"));
    lister.hello("lister");
    std::map<std::string, std::string> listed;
    Json reply;
    for (int attempt = 0; attempt < 40 && listed.size() < created_on.size(); ++attempt) {
      listed.clear();
      reply = lister.request({{"type", "list_rooms"}});
      for (const Json& r : reply.value("rooms", Json::array())) {
        const std::string room = r.value("room", "");
        if (created_on.contains(room)) listed[room] = r.value("node", "");
      }
      std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(listed, created_on) << reply.dump().substr(0, 400);
    std::set<std::string> used;
    for (const auto& [room, node] : created_on) {
      EXPECT_TRUE(names.contains(node)) << room << " on \"" << node << "\"";
      used.insert(node);
    }
    EXPECT_GE(used.size(), 2U) << "leastconn spreads the creators over the nodes";
  }
  Reach through_proxy{[proxy] { return std::vector<unsigned short>{proxy}; },
                      [proxy](int) -> std::optional<unsigned short> { return proxy; }, false};
  std::vector<std::thread> drivers;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    drivers.emplace_back([&, i] { SeatDriver(tables[i], through_proxy, seed + i).run(150s); });
  }
  std::this_thread::sleep_for(3s);
  ASSERT_EQ(::kill(node_pids[0], SIGKILL), 0);
  std::this_thread::sleep_for(5s);
  {
    // A dead node's name is no trap: the proxy connects the client to a live node.
    TestClient client("127.0.0.1", proxy, to_node("node-1"));
    const std::string node = client.hello("late").value("node", "");
    EXPECT_TRUE(node == "node-2" || node == "node-3") << node;
  }
  ASSERT_EQ(::kill(node_pids[1], SIGSTOP), 0);
  std::this_thread::sleep_for(kLease * 3);
  ASSERT_EQ(::kill(node_pids[1], SIGCONT), 0);
  for (auto& driver : drivers) driver.join();

  std::string store_url;
  {
    std::ifstream in(dir / "store.url");
    std::getline(in, store_url);
  }
  // up.sh's PostgreSQL, stopped by down.sh when the case ends: this store is closed first.
  server::PostgresStoreOptions options;
  options.url = store_url;
  options.exclusive = false;
  server::PostgresStore stored(options);
  int taken_over = 0;
  std::string logs;
  for (const Json& node : cluster["nodes"]) {
    const std::string name = node["name"];
    logs += "  " + name + ":\n" + tail_of(dir / "logs" / (name + ".log"), 15);
  }
  for (const Table& table : tables) {
    SCOPED_TRACE("room " + table.room + " (" + std::to_string(table.reconnects) + " reconnects, " +
                 std::to_string(table.acked.size()) + " moves ok'd)");
    if (!table.over) {
      std::string about;
      for (const Json& node : cluster["nodes"]) {
        about +=
            lines_naming(dir / "logs" / (node["name"].get<std::string>() + ".log"), table.room);
      }
      ADD_FAILURE() << table.failure << "\n"
                    << trail_of(table) << "the nodes' lines about the room:\n"
                    << about << "the nodes' last lines:\n"
                    << logs << "(the cluster's directory is kept: " << dir.string() << ")";
    }
    const auto history = stored.load_room(table.room);
    ASSERT_TRUE(history);
    if (history->room.epoch > 1) ++taken_over;
    EXPECT_EQ(check_table(table, *history), "");
  }
  // The killed node's rooms at least moved.
  EXPECT_GE(taken_over, 1) << logs;
  std::cout << tables.size() << " games finished through the proxy, " << taken_over
            << " rooms taken over" << std::endl;
  stored.close();
}

// ---- quick play across the cluster -------------------------------------------------------

// The next quick_play push of `client` with this status (null when none comes in `limit`).
Json next_quick_play(TestClient& client, const std::string& status,
                     std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    const auto frame = client.next_of("quick_play", 200ms);
    if (frame && frame->value("status", "") == status) return *frame;
  }
  return Json();
}

// The nodes players connect to, one per player, every node used, in an order the seed picks.
std::vector<int> spread_over_nodes(std::size_t players, std::mt19937_64& rng) {
  std::vector<int> nodes;
  for (std::size_t i = 0; i < players; ++i) nodes.push_back(static_cast<int>(i % kNodes));
  std::shuffle(nodes.begin(), nodes.end(), rng);
  return nodes;
}

// Waits until every client is seated; returns the rooms and seats they were told.
std::vector<Json> seated_all(std::vector<std::unique_ptr<TestClient>>& clients,
                             std::chrono::milliseconds limit) {
  std::vector<Json> seated;
  for (auto& client : clients) seated.push_back(next_quick_play(*client, "seated", limit));
  return seated;
}

// Bots at the table as `client`'s last room push before the game's first state shows it.
int bots_seen(TestClient& client, const std::string& room) {
  int bots = -1;
  for (const auto until = Clock::now() + 10s; Clock::now() < until;) {
    auto frame = client.next(200ms);
    if (!frame) continue;
    if (frame->value("type", "") == "room" && frame->value("room", "") == room) {
      bots = 0;
      for (const Json& seat : (*frame)["seats"])
        bots += seat.is_object() && seat.value("bot", false);
    }
    if (frame->value("type", "") == "state" && frame->value("room", "") == room) return bots;
  }
  return -2;  // no state: the game did not reach this player
}

TEST_F(ClusterTest, QuickPlaySeatsFourPlayersOnThreeNodesAtOneTableWithoutBots) {
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the players' nodes)" << std::endl;
  std::mt19937_64 rng(seed);
  Cluster& cluster = make_cluster("quick4", {"--quick-play-bots-after-s", "60"});
  ASSERT_EQ(cluster.start_all(), "");
  const std::vector<int> nodes = spread_over_nodes(4, rng);
  std::vector<std::unique_ptr<TestClient>> clients;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    clients.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(nodes[i]).port()));
    clients.back()->hello("p" + std::to_string(i));
    const Json waiting =
        clients.back()->request({{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 4}});
    ASSERT_EQ(waiting.value("status", ""), "waiting") << waiting;
    EXPECT_EQ(waiting.value("position", 0), static_cast<int>(i) + 1) << waiting;
    if (i == 0) {
      // Queueing again while waiting is refused, and leaves the ticket as it was.
      EXPECT_EQ(clients[0]
                    ->request({{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 4}})
                    .value("code", ""),
                "already_queued");
    }
  }
  const std::vector<Json> seated = seated_all(clients, 10s);
  std::set<int> seats;
  for (std::size_t i = 0; i < seated.size(); ++i) {
    ASSERT_TRUE(seated[i].is_object())
        << "player " << i << " on node" << nodes[i] << " was never seated\n"
        << cluster.logs();
    EXPECT_EQ(seated[i]["room"], seated[0]["room"]) << seated[i];
    seats.insert(seated[i].value("seat", -1));
  }
  EXPECT_EQ(seats, (std::set<int>{0, 1, 2, 3}));
  const std::string room = seated[0]["room"];
  for (std::size_t i = 0; i < clients.size(); ++i) {
    EXPECT_EQ(bots_seen(*clients[i], room), 0) << "player " << i << " on node" << nodes[i] << "\n"
                                               << cluster.lines_about(room);
  }
  // Seated at an unfinished table, on whatever node it is, a player cannot queue again (other
  // nodes learn the room from its node's published list within a second).
  std::this_thread::sleep_for(2s);
  for (std::size_t i = 0; i < clients.size(); ++i) {
    const Json again =
        clients[i]->request({{"type", "quick_play"}, {"kind", "bigtwo"}, {"seats", 4}});
    EXPECT_EQ(again.value("code", ""), "already_seated") << "player " << i << ": " << again;
  }
}

TEST_F(ClusterTest, QuickPlayFillsATableOfTwoNodesPlayersWithBotsAfterTheWait) {
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the players' nodes)" << std::endl;
  std::mt19937_64 rng(seed);
  Cluster& cluster = make_cluster("quickbots", {"--quick-play-bots-after-s", "2"});
  ASSERT_EQ(cluster.start_all(), "");
  std::vector<int> nodes{0, 1, 2};
  std::shuffle(nodes.begin(), nodes.end(), rng);
  nodes.resize(2);
  std::vector<std::unique_ptr<TestClient>> clients;
  const auto asked = Clock::now();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    clients.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(nodes[i]).port()));
    clients.back()->hello("q" + std::to_string(i));
    if (i == 1) std::this_thread::sleep_for(500ms);
    const Json waiting = clients.back()->request({{"type", "quick_play"}, {"kind", "spades"}});
    ASSERT_EQ(waiting.value("status", ""), "waiting") << waiting;
    // Until the first player's wait is over (bots fill the table then), by Redis's clock.
    EXPECT_GT(waiting.value("estimate_ms", 0), 0) << waiting;
    EXPECT_LE(waiting.value("estimate_ms", 0), i == 0 ? 2000 : 1600) << waiting;
  }
  const std::vector<Json> seated = seated_all(clients, 10s);
  for (std::size_t i = 0; i < seated.size(); ++i) {
    ASSERT_TRUE(seated[i].is_object())
        << "player " << i << " on node" << nodes[i] << " was never seated\n"
        << cluster.logs();
    EXPECT_EQ(seated[i]["room"], seated[0]["room"]);
  }
  EXPECT_GE(Clock::now() - asked, 2s) << "seated before the wait: no table of two was due";
  const std::string room = seated[0]["room"];
  for (std::size_t i = 0; i < clients.size(); ++i) {
    EXPECT_EQ(bots_seen(*clients[i], room), 2) << "player " << i << "\n"
                                               << cluster.lines_about(room);
  }
}

TEST_F(ClusterTest, QuickPlayDropsAKilledNodesWaitingPlayerFromTheOthersStandings) {
  const std::uint64_t seed = test_seed(std::random_device{}());
  std::cout << "PARLOR_SEED=" << seed << " (set it to replay the node killed)" << std::endl;
  std::mt19937_64 rng(seed);
  Cluster& cluster = make_cluster("quickkill", {"--quick-play-bots-after-s", "0"});
  ASSERT_EQ(cluster.start_all(), "");
  const int killed = static_cast<int>(rng() % kNodes);
  const int watcher = (killed + 1) % kNodes;
  std::vector<std::unique_ptr<TestClient>> clients;
  // What the watcher was told last: its answer, then the pushes (sent only on a change).
  Json standing = Json::object();
  for (int n = 0; n < kNodes; ++n) {
    clients.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(n).port()));
    clients.back()->hello("k" + std::to_string(n));
    const Json waiting = clients.back()->request({{"type", "quick_play"}, {"kind", "spades"}});
    ASSERT_EQ(waiting.value("status", ""), "waiting") << waiting;
    if (n == watcher) standing = waiting;
  }
  TestClient& watching = *clients[static_cast<std::size_t>(watcher)];
  for (const auto until = Clock::now() + 10s;
       standing.value("waiting", 0) != 3 && Clock::now() < until;) {
    if (Json pushed = next_quick_play(watching, "waiting", 500ms); pushed.is_object()) {
      standing = pushed;
    }
  }
  ASSERT_EQ(standing.value("waiting", 0), 3) << standing << "\n" << cluster.logs();
  ASSERT_EQ(cluster.node(killed).kill_now(), "");
  for (const auto until = Clock::now() + 15s;
       standing.value("waiting", 0) != 2 && Clock::now() < until;) {
    if (Json pushed = next_quick_play(watching, "waiting", 500ms); pushed.is_object()) {
      standing = pushed;
    }
  }
  EXPECT_EQ(standing.value("waiting", 0), 2)
      << "node" << killed << "'s player still counted: " << standing << "\n"
      << cluster.logs();
  // Dropped because its node is not live (a lease), not only because its ticket expired
  // unrenewed (three leases).
  EXPECT_NE(cluster.lines_about("not live").find("(node node" + std::to_string(killed) + " is"),
            std::string::npos)
      << cluster.logs();
}

TEST_F(ClusterTest, QuickPlayRefusesWithoutRedisAndRequeuesWhatARestartedRedisLost) {
  Cluster& cluster = make_cluster("quickredis", {"--quick-play-bots-after-s", "0"});
  ASSERT_EQ(cluster.start_all(), "");
  // Two wait for a table of four, on two nodes.
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int n = 0; n < 2; ++n) {
    clients.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(n).port()));
    clients.back()->hello("r" + std::to_string(n));
    const Json waiting = clients.back()->request({{"type", "quick_play"}, {"kind", "spades"}});
    ASSERT_EQ(waiting.value("status", ""), "waiting") << waiting;
  }
  // Without Redis, queueing is refused with a code (and logged), not swallowed.
  redis().kill();
  clients.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(2).port()));
  clients.back()->hello("r2");
  const Json refused = clients.back()->request({{"type", "quick_play"}, {"kind", "spades"}});
  EXPECT_EQ(refused.value("code", ""), "internal_error") << refused;
  // Redis comes back empty: the two waiting are queued again by their nodes, and two more
  // make the table with them.
  redis().start();
  std::this_thread::sleep_for(2s);  // a node's Redis connection is retried each pass
  for (int i = 2; i < 4; ++i) {
    if (i == 3) {
      clients.push_back(std::make_unique<TestClient>("127.0.0.1", cluster.node(2).port()));
      clients.back()->hello("r3");
    }
    Json waiting;
    for (const auto until = Clock::now() + 10s; Clock::now() < until;) {
      waiting = clients[static_cast<std::size_t>(i)]->request(
          {{"type", "quick_play"}, {"kind", "spades"}});
      if (waiting.value("status", "") == "waiting") break;
      std::this_thread::sleep_for(300ms);  // the node's pool reconnects to Redis
    }
    ASSERT_EQ(waiting.value("status", ""), "waiting") << waiting;
  }
  const std::vector<Json> seated = seated_all(clients, 10s);
  for (std::size_t i = 0; i < seated.size(); ++i) {
    ASSERT_TRUE(seated[i].is_object()) << "player " << i << " was never seated\n" << cluster.logs();
    EXPECT_EQ(seated[i]["room"], seated[0]["room"]);
  }
  EXPECT_NE(cluster.lines_about("cannot queue").find("in Redis"), std::string::npos);
  EXPECT_NE(cluster.lines_about("queued again").find("Redis had lost"), std::string::npos);
}

}  // namespace
}  // namespace parlor::testing
