// /metrics of the real parlor-server after real play, checked by Prometheus' own promtool
// (Debian's `prometheus` package): the scrape parses and lints clean; moves are counted by
// game and by who made them (a player, a bot, the turn clock); a move refused by the rules
// is counted for its game; an external game's engine calls are timed; the store's commits
// and the process_* metrics are there. Then the alert rules (deploy/prometheus) and the
// Grafana dashboard (deploy/grafana) name only metrics this scrape has.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/game_driver.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_fixture.h"
#include "tests/support/server_process.h"
#include "tests/support/shell_command.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path test_dir(const std::string& name) { return scratch_dir("metrics-test", name); }

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string scrape(unsigned short port) {
  const std::string response = http_get(port, "/metrics");
  const auto body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

// The value of the sample `series` (name and labels exactly as exposed), or -1.
double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

// The parlor_rejects_total lines of `text`, for failure messages.
std::string rejects(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("parlor_rejects_total{", 0) == 0) out += line + "\n";
  }
  return out;
}

// Every parlor_* and process_* metric name in `text` (a PromQL file, a dashboard).
std::set<std::string> metric_names_in(const std::string& text) {
  static const std::regex name(R"(\b(parlor|process)_[a-z0-9_]+)");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator();
       ++it) {
    names.insert(it->str());
  }
  return names;
}

// A Python engine (tests/support/fake_engine.py) on a free loopback port.
class FakeEngine {
 public:
  FakeEngine()
      : process_(fs::path(PARLOR_SOURCE_DIR) / "tests/support/fake_engine.py", {},
                 test_dir("engine"), "fake-engine") {
    const std::string error = process_.start(0);
    if (!error.empty()) throw std::runtime_error("fake engine: " + error);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(process_.port()); }

 private:
  ServerProcess process_;
};

// Plays on the server at `port`: a game of the fake external engine between two players
// (with one move the rules refuse), and a Big Two room where a bot and the turn clock play.
// Returns "" or what went wrong.
std::string play(unsigned short port) {
  TestClient p0("127.0.0.1", port);
  TestClient p1("127.0.0.1", port);
  if (p0.hello("p0")["type"] != "welcome" || p1.hello("p1")["type"] != "welcome") {
    return "hello";
  }
  const Json created = p0.request(
      {{"type", "create_room"}, {"kind", "fake"}, {"seats", 2}, {"options", {{"seed", 7}}}});
  const std::string room = created.value("room", "");
  if (p1.request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"] != "joined" ||
      p0.request({{"type", "start"}, {"room", room}})["type"] != "ok") {
    return "fake room: " + created.dump();
  }
  std::vector<TestClient*> seats = {&p0, &p1};
  int seat = 0;
  for (int move = 0; move < 4; ++move) {
    auto state = next_prompt(*seats[static_cast<std::size_t>(seat)], room, seat);
    if (!state) return "no prompt for seat " + std::to_string(seat);
    auto& mover = *seats[static_cast<std::size_t>(seat)];
    if (move == 0) {
      // A move the open prompt does not offer: refused by the rules, nothing changes.
      const Json refused = mover.request({{"type", "move"},
                                          {"room", room},
                                          {"seq", (*state)["seq"]},
                                          {"move", {{"no_such_field", true}}}});
      if (refused["type"] != "error") return "not refused: " + refused.dump();
    }
    const Json ok = mover.request({{"type", "move"},
                                   {"room", room},
                                   {"seq", (*state)["seq"]},
                                   {"move", (*state)["prompt"]["legal"][0]}});
    if (ok["type"] != "ok") return "move: " + ok.dump();
    seat = 1 - seat;
  }

  // Big Two: the player never moves; the turn clock moves for them, the bot for itself.
  const Json table = p0.request({{"type", "create_room"},
                                 {"kind", "bigtwo"},
                                 {"seats", 2},
                                 {"options", {{"seed", 3}, {"turn_seconds", 1}}}});
  const std::string bigtwo = table.value("room", "");
  if (p0.request({{"type", "add_bot"}, {"room", bigtwo}, {"seat", 1}})["type"] != "ok" ||
      p0.request({{"type", "start"}, {"room", bigtwo}})["type"] != "ok") {
    return "bigtwo room: " + table.dump();
  }
  const auto deadline = std::chrono::steady_clock::now() + 6s;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = scrape(port);
    if (sample(text, R"(parlor_game_moves_total{game="bigtwo",by="timeout"})") >= 1 &&
        sample(text, R"(parlor_game_moves_total{game="bigtwo",by="bot"})") >= 1) {
      return "";
    }
    std::this_thread::sleep_for(100ms);
  }
  return "no timeout move and bot move in Big Two within 6 s";
}

void expect_promtool_accepts(const std::string& text) {
  const fs::path file = test_dir("scrape") / "metrics.txt";
  std::ofstream(file) << text;
  std::string output;
  EXPECT_EQ(run_shell("promtool check metrics < " + file.string(), output), 0) << output;
  EXPECT_EQ(output, "") << "lint problems";
}

void expect_moves_counted_by_game_and_mover(const std::string& text) {
  EXPECT_EQ(sample(text, R"(parlor_game_moves_total{game="fake",by="player"})"), 4);
  EXPECT_EQ(sample(text, R"(parlor_game_moves_refused_total{game="fake"})"), 1) << rejects(text);
  EXPECT_GE(sample(text, R"(parlor_game_moves_total{game="bigtwo",by="timeout"})"), 1);
  EXPECT_GE(sample(text, R"(parlor_game_moves_total{game="bigtwo",by="bot"})"), 1);
  EXPECT_EQ(sample(text, R"(parlor_game_moves_total{game="bigtwo",by="player"})"), 0);
  EXPECT_GE(sample(text, "parlor_moves_accepted_total"), 4);
}

void expect_engine_calls_timed_by_game(const std::string& text) {
  // At least one call for each of the four moves.
  EXPECT_GE(sample(text, R"(parlor_engine_call_seconds_count{game="fake"})"), 4);
  EXPECT_EQ(sample(text, R"(parlor_engine_call_failures_total{game="fake"})"), 0);
  EXPECT_EQ(sample(text, R"(parlor_engine_call_seconds_count{game="bigtwo"})"), 0);
}

void expect_store_commits_measured(const std::string& text) {
  const double batches = sample(text, "parlor_store_commit_seconds_count");
  EXPECT_GE(batches, 1);
  EXPECT_EQ(sample(text, "parlor_store_batch_size_count"), batches);
  // Each committed batch holds at least one write.
  EXPECT_GE(sample(text, "parlor_store_writes_total"), batches);
  EXPECT_GE(sample(text, "parlor_store_batch_size_sum"), batches);
  EXPECT_EQ(sample(text, "parlor_store_write_failures_total"), 0);
  EXPECT_EQ(sample(text, "parlor_store_batch_failures_total"), 0);
  EXPECT_GE(sample(text, "parlor_store_queue_depth"), 0);
}

void expect_process_metrics(const std::string& text) {
  EXPECT_GT(sample(text, "process_cpu_seconds_total"), 0);
  EXPECT_GT(sample(text, "process_resident_memory_bytes"), 1 << 20);
  EXPECT_GE(sample(text, "process_virtual_memory_bytes"),
            sample(text, "process_resident_memory_bytes"));
  // The listener, the store's file, its WAL, the clients' sockets...
  const double fds = sample(text, "process_open_fds");
  EXPECT_GT(fds, 4);
  EXPECT_GT(sample(text, "process_max_fds"), fds);
  // Two I/O threads, the store's writer and the blocking pool at least.
  EXPECT_GE(sample(text, "process_threads"), 4);
  const double started = sample(text, "process_start_time_seconds");
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(started, now);
  EXPECT_GT(started, now - 120) << "the server started within the test";
}

void expect_rules_and_dashboard_name_exposed_metrics(const std::string& text) {
  const std::set<std::string> exposed = metric_names_in(text);
  const auto check = [&](const fs::path& file) {
    const std::set<std::string> named = metric_names_in(read_file(file));
    EXPECT_GT(named.size(), 5U) << file;
    for (const std::string& name : named) {
      EXPECT_TRUE(exposed.count(name))
          << file.filename() << " names " << name << ", which /metrics does not have";
    }
  };
  check(fs::path(PARLOR_SOURCE_DIR) / "deploy/prometheus/parlor-rules.yml");
  check(fs::path(PARLOR_SOURCE_DIR) / "deploy/grafana/parlor-dashboard.json");
  // The dashboard is valid JSON with panels, as Grafana's import needs.
  const Json dashboard =
      Json::parse(read_file(fs::path(PARLOR_SOURCE_DIR) / "deploy/grafana/parlor-dashboard.json"));
  EXPECT_FALSE(dashboard.value("title", "").empty());
  EXPECT_GT(dashboard["panels"].size(), 5U);
}

TEST(AlertRules, PassPromtoolAndTheirUnitTests) {
  const fs::path prometheus = fs::path(PARLOR_SOURCE_DIR) / "deploy/prometheus";
  std::string output;
  EXPECT_EQ(run_shell("promtool check rules " + (prometheus / "parlor-rules.yml").string(), output),
            0)
      << output;
  EXPECT_EQ(run_shell("cd " + prometheus.string() + " && promtool test rules parlor-rules.test.yml",
                      output),
            0)
      << output;
}

// One server played on once (each discovered test is a process of its own): every check of
// the scrape below runs on the same one.
TEST(Metrics, AScrapeAfterPlayPassesPromtoolAndExplainsWhatHappened) {
  FakeEngine engine;
  ServerProcess server(
      PARLOR_SERVER_BINARY,
      {"--dev", "--store", "sqlite", "--data-dir", test_dir("data").string(), "--threads", "2",
       "--engine", "fake=" + engine.url(), "--bot-delay-ms", "20"},
      test_dir("logs"), "server");
  ASSERT_EQ(server.start(), "");
  ASSERT_EQ(play(server.port()), "") << tail_of(server.log(), 20);
  const std::string text = scrape(server.port());
  {
    SCOPED_TRACE("promtool check metrics");
    expect_promtool_accepts(text);
  }
  {
    SCOPED_TRACE("moves");
    expect_moves_counted_by_game_and_mover(text);
  }
  {
    SCOPED_TRACE("engine calls");
    expect_engine_calls_timed_by_game(text);
  }
  {
    SCOPED_TRACE("store");
    expect_store_commits_measured(text);
  }
  {
    SCOPED_TRACE("process");
    expect_process_metrics(text);
  }
  {
    SCOPED_TRACE("rules and dashboard");
    expect_rules_and_dashboard_name_exposed_metrics(text);
  }
  server.kill_now();
}

}  // namespace
}  // namespace parlor::testing
