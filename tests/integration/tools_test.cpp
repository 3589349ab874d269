// The network tools as separate processes against an in-process server: parlor-load's JSON
// report, two parlor-bots playing each other, a bot resuming after its connection is taken
// over, wss://, and the bounded failures. Every child is killed if it outlives its deadline.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/server_fixture.h"

extern char** environ;

namespace parlor::testing {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A child process whose stdout the test reads line by line; stderr is the test's own, so a
// failing tool's complaint shows in the test log.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
  }
  ~Child() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }

  // The next line of stdout, or nullopt at the deadline or the end of the output.
  std::optional<std::string> read_line(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
      if (const auto end = buffer_.find('\n'); end != std::string::npos) {
        std::string line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return line;
      }
      if (eof_ || !fill(deadline)) return std::nullopt;
    }
  }

  // All of stdout until the child closes it (or the deadline).
  std::string read_all(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!eof_ && fill(deadline)) {
    }
    std::string all = std::move(buffer_);
    buffer_.clear();
    return all;
  }

  // The exit status, or nullopt (and the child killed) when it runs past the deadline.
  std::optional<int> wait(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!status_) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else if (Clock::now() >= deadline) {
        ADD_FAILURE() << "child " << pid_ << " still running at its deadline; killed";
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        status_ = -1;
        return std::nullopt;
      } else {
        std::this_thread::sleep_for(20ms);
      }
    }
    return status_;
  }

 private:
  // Reads what is there; false at the deadline.
  bool fill(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[4096];
    const ssize_t n = read(out_, chunk, sizeof chunk);
    if (n <= 0) {
      eof_ = true;
      return true;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
  bool eof_ = false;
  std::optional<int> status_;
};

std::string url_of(const ServerFixture& server, const std::string& scheme = "ws") {
  return scheme + "://127.0.0.1:" + std::to_string(server.port()) + "/ws";
}

// The value of `key=` in a parlor-bot summary line ("" when absent).
// (A plain search rather than std::regex, whose code GCC 12 reports as maybe-uninitialized
// under the asan preset's -Werror.)
std::string field(const std::string& summary, const std::string& key) {
  const std::string wanted = key + "=";
  for (auto at = summary.find(wanted); at != std::string::npos; at = summary.find(wanted, at + 1)) {
    if (at > 0 && summary[at - 1] != ' ') continue;  // the end of another key
    const auto start = at + wanted.size();
    return summary.substr(start, summary.find(' ', start) - start);
  }
  return "";
}

// The summary line among a bot's remaining stdout.
std::string summary_of(Child& bot) {
  const std::string rest = bot.read_all(5s);
  const auto at = rest.rfind("parlor-bot name=");
  return at == std::string::npos ? "" : rest.substr(at, rest.find('\n', at) - at);
}

std::vector<std::string> bot_args(const ServerFixture& server, std::vector<std::string> extra) {
  std::vector<std::string> args = {PARLOR_BOT_PATH, "--url",         url_of(server),
                                   "--quiet",       "--max-seconds", "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A creating bot's room id, from its first stdout line "room ID".
std::string room_of(Child& creator) {
  const auto line = creator.read_line(10s);
  if (!line || !line->starts_with("room ")) return "";
  return line->substr(5);
}

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("parlor-tools-" + std::to_string(getpid()) + "-" + name);
}

TEST(ParlorLoad, ShortRunReportsMovesLatencyAndNoErrors) {
  ServerFixture server;
  Child load({PARLOR_LOAD_PATH, "--url", url_of(server), "--game", "bigtwo", "--rooms", "5",
              "--seats", "4", "--duration", "3", "--ramp-ms", "200", "--seed", "5", "--json"});
  ASSERT_TRUE(load.started());
  const std::string out = load.read_all(20s);
  EXPECT_EQ(load.wait(5s), 0) << out;
  const Json report = Json::parse(out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << out;
  EXPECT_EQ(report["errors"], Json::object()) << out;
  EXPECT_EQ(report["connections"], 20);
  EXPECT_GT(report["moves"].get<std::int64_t>(), 0);
  EXPECT_GT(report["games_finished"].get<std::int64_t>(), 0);
  for (const char* key : {"p50", "p90", "p99", "max"}) {
    ASSERT_TRUE(report["latency_ms"].contains(key)) << key;
    EXPECT_TRUE(report["latency_ms"][key].is_number()) << key;
  }
  EXPECT_GT(report["latency_ms"]["max"].get<double>(), 0.0);
  EXPECT_LE(report["latency_ms"]["p50"].get<double>(), report["latency_ms"]["max"].get<double>());
}

// --bot-rooms: one more room whose other seats are server bots, counted apart from the
// measured rooms.
TEST(ParlorLoad, BotRoomsAreFilledWithServerBotsAndReportedApart) {
  server::ServerConfig config = ServerFixture::test_config();
  config.bot_delay = std::chrono::milliseconds(1);
  ServerFixture server(config);
  Child load({PARLOR_LOAD_PATH,
              "--url",
              url_of(server),
              "--game",
              "bigtwo",
              "--rooms",
              "2",
              "--seats",
              "4",
              "--duration",
              "3",
              "--ramp-ms",
              "200",
              "--seed",
              "5",
              "--json",
              "--bot-rooms",
              "1",
              "--bot-strategy",
              "medium"});
  ASSERT_TRUE(load.started());
  const std::string out = load.read_all(20s);
  EXPECT_EQ(load.wait(5s), 0) << out;
  const Json report = Json::parse(out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << out;
  EXPECT_EQ(report["errors"], Json::object()) << out;
  EXPECT_EQ(report["connections"], 8);  // the measured rooms' players only
  EXPECT_EQ(report["bot_rooms"], 1);
  EXPECT_EQ(report["bot_strategy"], "medium");
  // The bot room's one player moves only if three bots took the other seats and played.
  EXPECT_GT(report["bot_rooms_client_moves"].get<std::int64_t>(), 0) << out;
  EXPECT_GT(report["moves"].get<std::int64_t>(), 0);
}

TEST(ParlorBot, TwoBotsPlayABigTwoGameToTheEnd) {
  ServerFixture server;
  Child alice(bot_args(server, {"--name", "alice", "--create", "bigtwo", "--seats", "2",
                                "--options", R"({"seed":11})", "--seed", "1", "--games", "1"}));
  const std::string room = room_of(alice);
  ASSERT_FALSE(room.empty());
  Child bob(bot_args(server, {"--name", "bob", "--room", room, "--strategy", "greedy", "--seed",
                              "2", "--games", "1"}));
  EXPECT_EQ(alice.wait(20s), 0);
  EXPECT_EQ(bob.wait(20s), 0);
  const std::string a = summary_of(alice);
  const std::string b = summary_of(bob);
  for (const auto& summary : {a, b}) {
    EXPECT_EQ(field(summary, "games"), "1") << summary;
    EXPECT_EQ(field(summary, "result"), "ok") << summary;
    EXPECT_EQ(field(summary, "room"), room) << summary;
    EXPECT_EQ(field(summary, "errors"), "0") << summary;
    EXPECT_NE(field(summary, "moves"), "0") << summary;
  }
  EXPECT_EQ(field(a, "seat"), "0");
  EXPECT_EQ(field(b, "seat"), "1");
  EXPECT_EQ(std::stoi("0" + field(a, "wins")) + std::stoi("0" + field(b, "wins")), 1) << a << "\n"
                                                                                      << b;
}

// The server closes a player's older connection (code 4000) when a newer one says hello with
// the same token. So the test takes the bot's token from --token-file, says hello with it
// mid-game, and checks that the bot comes back (closing the test's connection in turn with
// 4000) and finishes the game. A spectator tells the test when the game is under way; the
// think time keeps the game running long enough for the takeover to land mid-game.
TEST(ParlorBot, ResumesWithItsTokenWhenItsConnectionIsTakenOver) {
  ServerFixture server;
  const auto token_file = temp_path("token");
  std::filesystem::remove(token_file);
  Child alice(
      bot_args(server, {"--name", "alice", "--create", "bigtwo", "--seats", "2", "--options",
                        R"({"seed":12})", "--think-ms", "60", "--games", "1"}));
  const std::string room = room_of(alice);
  ASSERT_FALSE(room.empty());
  auto watcher = server.player("watcher");
  ASSERT_EQ(watcher->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  Child bob(bot_args(server, {"--name", "bob", "--room", room, "--think-ms", "60", "--games", "1",
                              "--token-file", token_file.string()}));

  // Wait until a few moves have been made.
  const auto deadline = Clock::now() + 10s;
  std::int64_t seq = -1;
  while (seq < 3 && Clock::now() < deadline) {
    auto state = watcher->next_of("state", 10s);
    ASSERT_TRUE(state) << "no game under way";
    seq = (*state)["seq"].get<std::int64_t>();
  }
  ASSERT_GE(seq, 3);
  std::string token;
  std::ifstream(token_file) >> token;
  ASSERT_FALSE(token.empty()) << "no token in " << token_file;

  auto thief = server.connect();
  const Json welcome = thief->request({{"type", "hello"}, {"token", token}, {"protocol", 1}});
  ASSERT_EQ(welcome["type"], "welcome") << welcome.dump();
  // The bot resumes and in turn replaces this connection.
  ASSERT_TRUE(thief->wait_closed(10s));
  EXPECT_EQ(thief->close_code(), 4000);

  EXPECT_TRUE(watcher->next_of("game_over", 15s));
  EXPECT_EQ(alice.wait(15s), 0);
  EXPECT_EQ(bob.wait(15s), 0);
  const std::string b = summary_of(bob);
  EXPECT_EQ(field(b, "reconnects"), "1") << b;
  EXPECT_EQ(field(b, "games"), "1") << b;
  EXPECT_EQ(field(b, "result"), "ok") << b;
  EXPECT_EQ(field(b, "player"), welcome["player"].get<std::string>()) << b;
  EXPECT_EQ(field(summary_of(alice), "games"), "1");
  std::filesystem::remove(token_file);
}

TEST(ParlorBot, PlaysOverWss) {
  const auto dir = temp_path("tls");
  ServerFixture server(ServerFixture::tls_config(dir));
  const std::string url = url_of(server, "wss");
  Child alice(bot_args(server, {"--url", url, "--insecure", "--name", "alice", "--create", "bigtwo",
                                "--seats", "2", "--games", "1"}));
  const std::string room = room_of(alice);
  ASSERT_FALSE(room.empty());
  Child bob(bot_args(server, {"--url", url, "--insecure", "--room", room, "--games", "1"}));
  EXPECT_EQ(alice.wait(20s), 0);
  EXPECT_EQ(bob.wait(20s), 0);
  EXPECT_EQ(field(summary_of(bob), "games"), "1");
  // Without --insecure the self-signed certificate is refused: the bot retries until its
  // time limit and reports that it played nothing.
  Child strict(bot_args(server, {"--url", url, "--room", room, "--max-seconds", "1"}));
  EXPECT_EQ(strict.wait(10s), 1);
  EXPECT_EQ(field(summary_of(strict), "result"), "time_limit");
  std::filesystem::remove_all(dir);
}

TEST(ParlorBot, FailsFastOnAMissingRoomAndStopsAtItsTimeLimit) {
  ServerFixture server;
  Child lost(bot_args(server, {"--room", "nosuchroom"}));
  EXPECT_EQ(lost.wait(10s), 1);
  EXPECT_EQ(field(summary_of(lost), "result"), "error");

  // Nobody joins: the bot gives up after --max-seconds.
  Child lonely(bot_args(server, {"--create", "bigtwo", "--seats", "2", "--max-seconds", "1"}));
  EXPECT_FALSE(room_of(lonely).empty());
  EXPECT_EQ(lonely.wait(10s), 1);
  EXPECT_EQ(field(summary_of(lonely), "result"), "time_limit");

  Child confused({PARLOR_BOT_PATH, "--room", "a", "--create", "bigtwo"});
  EXPECT_EQ(confused.wait(10s), 2);
}

}  // namespace
}  // namespace parlor::testing
