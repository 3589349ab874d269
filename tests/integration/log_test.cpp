// The operator's log of the real parlor-server: --log-format json writes one JSON object per
// line (time, level, message, and event, room and player where known) and never a token or
// a seed; --log-level filters; both are set by flag, environment or config file like every
// other setting, and a bad value stops the start naming the key.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/scratch_dir.h"
#include "tests/support/server_process.h"
#include "tests/support/shell_command.h"
#include "tests/support/test_client.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A seed no timestamp, id or count in the log could contain by chance.
constexpr std::uint64_t kSeed = 9'087'654'321'987ULL;

fs::path log_test_dir(const std::string& name) { return scratch_dir("log-test", name); }

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Session {
  std::string player;
  std::string token;
  std::string room;
  Json refused_re;        // the refused move's request id
  Json lobby_refused_re;  // a refused lobby request's id
};

// A player creates a Big Two room with a fixed seed, a bot joins, the game starts and the
// player sends a move no rules accept (logged at debug as move_refused).
Session play_a_refused_move(unsigned short port) {
  Session out;
  TestClient client("127.0.0.1", port);
  const Json welcome = client.hello("alice");
  out.player = welcome.value("player", "");
  out.token = welcome.value("token", "");
  const Json created = client.request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}, {"options", {{"seed", kSeed}}}});
  out.room = created.value("room", "");
  EXPECT_EQ(client.request({{"type", "add_bot"}, {"room", out.room}, {"seat", 1}})["type"], "ok");
  EXPECT_EQ(client.request({{"type", "start"}, {"room", out.room}})["type"], "ok");
  const Json refused = client.request(
      {{"type", "move"}, {"room", out.room}, {"move", {{"play", {"no such card"}}}}});
  EXPECT_EQ(refused["type"], "error") << refused.dump();
  out.refused_re = refused["re"];
  const Json no_room = client.request({{"type", "join_room"}, {"room", "no-such-room"}});
  EXPECT_EQ(no_room["code"], "no_such_room") << no_room.dump();
  out.lobby_refused_re = no_room["re"];
  return out;
}

// The log's lines, each parsed as JSON (a line that is not fails the test).
std::vector<Json> json_lines(const fs::path& log) {
  std::vector<Json> out;
  for (const std::string& line : lines_of(log)) {
    try {
      out.push_back(Json::parse(line));
    } catch (const Json::exception& error) {
      ADD_FAILURE() << "not JSON: " << line << " (" << error.what() << ")";
    }
  }
  return out;
}

const Json* find_event(const std::vector<Json>& lines, const std::string& event) {
  for (const Json& line : lines) {
    if (line.value("event", "") == event) return &line;
  }
  return nullptr;
}

TEST(Logs, JsonLinesNameTheRoomAndPlayerAndNeverATokenOrSeed) {
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "none", "--log-format", "json", "--log-level", "debug"},
                       log_test_dir("json"), "server");
  ASSERT_EQ(server.start(), "");
  const Session session = play_a_refused_move(server.port());
  ASSERT_FALSE(session.token.empty());
  server.kill_now();

  const std::vector<Json> lines = json_lines(server.log());
  ASSERT_GT(lines.size(), 2U);
  for (const Json& line : lines) {
    EXPECT_TRUE(line.contains("time") && line.contains("level") && line.contains("message"))
        << line.dump();
  }
  const Json* started = find_event(lines, "game_started");
  ASSERT_TRUE(started) << "no game_started line";
  EXPECT_EQ((*started)["room"], session.room);
  EXPECT_EQ((*started)["level"], "info");
  const Json* refused = find_event(lines, "move_refused");
  ASSERT_TRUE(refused) << "no move_refused line at --log-level debug";
  EXPECT_EQ((*refused)["room"], session.room);
  EXPECT_EQ((*refused)["player"], session.player);
  EXPECT_EQ((*refused)["level"], "debug");
  EXPECT_EQ((*refused)["re"], session.refused_re) << "the refused request's id";
  const Json* lobby_refused = find_event(lines, "request_refused");
  ASSERT_TRUE(lobby_refused) << "no request_refused line at --log-level debug";
  EXPECT_EQ((*lobby_refused)["re"], session.lobby_refused_re);
  EXPECT_EQ((*lobby_refused)["player"], session.player);

  for (const std::string& line : lines_of(server.log())) {
    EXPECT_EQ(line.find(session.token), std::string::npos) << "a token in the log: " << line;
    EXPECT_EQ(line.find(std::to_string(kSeed)), std::string::npos)
        << "the seed in the log: " << line;
  }
}

// The level from the config file, the format from the environment: the same play as above
// logs its game_started line as JSON, and no debug line.
TEST(Logs, LevelAndFormatComeFromTheConfigFileAndTheEnvironment) {
  const fs::path dir = log_test_dir("layers");
  const fs::path config = dir / "parlor.conf";
  std::ofstream(config) << "log-level = info\nlog-format = text\n";
  // Over the file's text; set before the server's process is spawned, while this test has no
  // other thread.
  ::setenv("PARLOR_LOG_FORMAT", "json", 1);  // NOLINT(concurrency-mt-unsafe)
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "none", "--config", config.string()}, dir, "server");
  const std::string started = server.start();
  ::unsetenv("PARLOR_LOG_FORMAT");  // NOLINT(concurrency-mt-unsafe)
  ASSERT_EQ(started, "");
  const Session session = play_a_refused_move(server.port());
  server.kill_now();

  const std::vector<Json> lines = json_lines(server.log());
  const Json* game_started = find_event(lines, "game_started");
  ASSERT_TRUE(game_started);
  EXPECT_EQ((*game_started)["room"], session.room);
  EXPECT_FALSE(find_event(lines, "move_refused")) << "a debug line at log-level info";
}

// Runs parlor-server with `flags` (after `env`, NAME=VALUE, when not empty), which must not
// start; returns its exit status and puts what it printed in `error`.
int run_refused(const std::string& flags, const std::string& env, std::string& error) {
  return run_shell((env.empty() ? "" : "env " + env + " ") + PARLOR_SERVER_BINARY +
                       " --port 0 --store none " + flags,
                   error);
}

TEST(Logs, ABadLogSettingStopsTheStartNamingItsKey) {
  std::string error;
  EXPECT_EQ(run_refused("--log-format xml", "", error), 2);
  EXPECT_NE(error.find("--log-format"), std::string::npos) << error;

  EXPECT_EQ(run_refused("", "PARLOR_LOG_LEVEL=verbose", error), 2);
  EXPECT_NE(error.find("PARLOR_LOG_LEVEL"), std::string::npos) << error;

  const fs::path config = log_test_dir("refused") / "bad.conf";
  std::ofstream(config) << "# levels\nlog-level = loud\n";
  EXPECT_EQ(run_refused("--config " + config.string(), "", error), 2);
  EXPECT_NE(error.find(config.string() + ":2:"), std::string::npos) << error;
  EXPECT_NE(error.find("log-level"), std::string::npos) << error;
}

}  // namespace
}  // namespace parlor::testing
