// parlor-bot against an external game: the built binary (bots/net) as four separate
// processes playing a room of the Tamerlane Bid Whist engine (engines/bidwhist-tamerlane/,
// Python, on a free loopback port) hosted by an in-process server with
// `--engine bidwhist-tamerlane=URL`, to the engine's end_game; each bot's exit status and
// summary line are checked. And a strategy the bot has no version of for an external game
// (greedy is written per built-in game) is refused up front, with exit status 1.
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tests/support/server_fixture.h"
#include "tests/support/server_process.h"

extern char** environ;

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr const char* kKind = "bidwhist-tamerlane";

// A parlor-bot process: its stdout collected, its exit status awaited with a deadline (a
// bot still running then is killed and the test fails).
class Bot {
 public:
  explicit Bot(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
  }
  ~Bot() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }
  Bot(const Bot&) = delete;
  Bot& operator=(const Bot&) = delete;
  Bot(Bot&&) = delete;
  Bot& operator=(Bot&&) = delete;

  // The next stdout line, or "" at the deadline or the end of the output.
  std::string line(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    while (buffer_.find('\n') == std::string::npos && fill(deadline)) {
    }
    const auto end = buffer_.find('\n');
    if (end == std::string::npos) return "";
    std::string out = buffer_.substr(0, end);
    buffer_.erase(0, end + 1);
    return out;
  }

  // The exit status (and the rest of stdout read), or nullopt when the deadline came first.
  std::optional<int> wait(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    while (fill(deadline)) {
    }
    while (!status_) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else if (Clock::now() >= deadline) {
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

  // The summary line `parlor-bot name=... result=...` among what the bot printed.
  std::string summary() const {
    const auto at = buffer_.rfind("parlor-bot name=");
    return at == std::string::npos ? "" : buffer_.substr(at, buffer_.find('\n', at) - at);
  }

 private:
  // Reads what there is; false at the deadline or the end of the output.
  bool fill(Clock::time_point deadline) {
    if (eof_ || out_ < 0) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[4096];
    const ssize_t n = read(out_, chunk, sizeof chunk);
    if (n <= 0) {
      eof_ = true;
      return false;
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

// The value of `key=` in a summary line ("" when absent).
std::string field(const std::string& summary, const std::string& key) {
  const std::string wanted = key + "=";
  for (auto at = summary.find(wanted); at != std::string::npos; at = summary.find(wanted, at + 1)) {
    if (at > 0 && summary[at - 1] != ' ') continue;  // the end of another key
    const auto start = at + wanted.size();
    return summary.substr(start, summary.find(' ', start) - start);
  }
  return "";
}

// A fresh directory per test for the engine's log and the server's store.
fs::path test_dir() {
  fs::path dir = fs::temp_directory_path() /
                 ("parlor-engine-bot-test-" + std::to_string(getpid())) /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The example engine on a free loopback port, and a server hosting it as kKind with a SQLite
// store (so the finished game's replay can be read back).
class ExternalBotTest : public ::testing::Test {
 public:
  ExternalBotTest(const ExternalBotTest&) = delete;
  ExternalBotTest& operator=(const ExternalBotTest&) = delete;
  ExternalBotTest(ExternalBotTest&&) = delete;
  ExternalBotTest& operator=(ExternalBotTest&&) = delete;

 protected:
  ExternalBotTest()
      : dir_(test_dir()),
        engine_(fs::path(PARLOR_SOURCE_DIR) / "engines/bidwhist-tamerlane/server.py",
                {"--base", "/api/v1/whist"}, dir_, "bidwhist-tamerlane") {
    const std::string error = engine_.start(0);
    if (!error.empty()) throw std::runtime_error("bidwhist-tamerlane engine: " + error);
    auto config = ServerFixture::test_config();
    config.store = "sqlite";
    config.data_dir = (dir_ / "data").string();
    config.engines = {
        {kKind, "http://127.0.0.1:" + std::to_string(engine_.port()) + "/api/v1/whist"}};
    server_ = std::make_unique<ServerFixture>(std::move(config));
  }
  // The directory stays when the test failed: the engine's log is in it.
  ~ExternalBotTest() override {
    server_.reset();
    engine_.kill_now();
    std::error_code ignored;
    if (HasFailure()) return;
    fs::remove_all(dir_, ignored);
    fs::remove(dir_.parent_path(), ignored);  // only when no other test left its directory
  }
  std::vector<std::string> bot_args(std::vector<std::string> extra) const {
    std::vector<std::string> args = {PARLOR_BOT_PATH,
                                     "--url",
                                     "ws://127.0.0.1:" + std::to_string(server_->port()) + "/ws",
                                     "--quiet",
                                     "--max-seconds",
                                     "90"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  fs::path dir_;
  ServerProcess engine_;
  std::unique_ptr<ServerFixture> server_;
};

TEST_F(ExternalBotTest, FourParlorBotsPlayTheEngineToTheEnd) {
  Bot creator(bot_args({"--name", "north", "--create", kKind, "--seats", "4", "--options",
                        R"({"seed":21})", "--seed", "1", "--games", "1"}));
  const std::string first = creator.line(10s);
  ASSERT_TRUE(first.starts_with("room ")) << "the creating bot prints its room: " << first;
  const std::string room = first.substr(5);
  std::vector<std::unique_ptr<Bot>> others;
  int seed = 2;
  for (const std::string name : {"east", "south", "west"}) {
    others.push_back(std::make_unique<Bot>(bot_args(
        {"--name", name, "--room", room, "--seed", std::to_string(seed++), "--games", "1"})));
  }
  std::vector<Bot*> bots = {&creator};
  for (auto& bot : others) bots.push_back(bot.get());

  std::set<std::string> seats;
  int wins = 0;
  for (Bot* bot : bots) {
    const auto status = bot->wait(90s);
    const std::string summary = bot->summary();
    ASSERT_TRUE(status.has_value()) << "a bot still running after 90 s: " << summary;
    EXPECT_EQ(*status, 0) << summary;
    EXPECT_EQ(field(summary, "result"), "ok") << summary;
    EXPECT_EQ(field(summary, "games"), "1") << summary;
    EXPECT_EQ(field(summary, "room"), room) << summary;
    EXPECT_EQ(field(summary, "errors"), "0") << summary;
    EXPECT_GT(std::stoi("0" + field(summary, "moves")), 0) << summary;
    seats.insert(field(summary, "seat"));
    wins += std::stoi("0" + field(summary, "wins"));
  }
  EXPECT_EQ(seats, (std::set<std::string>{"0", "1", "2", "3"}));
  // Partners share their team's score: the winners of the game are one team, two seats.
  EXPECT_EQ(wins, 2);

  // The game is over as the engine said: its replay (open to anyone once a game is finished)
  // ends with the engine's end_game, and the winners are one team.
  const std::string response = http_get(server_->port(), "/api/games/" + room + "/replay");
  const auto body = response.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos) << response;
  const Json replay = Json::parse(response.substr(body + 4), nullptr, false);
  ASSERT_TRUE(replay.is_object()) << response;
  EXPECT_EQ(replay["finished"], true);
  EXPECT_EQ(replay["result"]["winners"].size(), 2U) << replay["result"].dump();
  const Json& last = replay["steps"].back()["events"];
  EXPECT_TRUE(std::any_of(last.begin(), last.end(), [](const Json& e) {
    return e.value("type", "") == "end_game";
  })) << last.dump();
}

TEST_F(ExternalBotTest, AStrategyWithoutAVersionForTheGameIsRefusedUpFront) {
  Bot greedy(bot_args({"--name", "greedy", "--create", kKind, "--strategy", "greedy"}));
  const auto status = greedy.wait(20s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 1);
  EXPECT_EQ(field(greedy.summary(), "result"), "error") << greedy.summary();
  EXPECT_EQ(field(greedy.summary(), "games"), "0") << greedy.summary();
}

}  // namespace
}  // namespace parlor::testing
