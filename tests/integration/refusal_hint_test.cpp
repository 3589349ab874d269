// parlor-load and parlor-bot, refused at the door, say what to do about it.
#include <gtest/gtest.h>

#include <stdio.h>
#include <sys/wait.h>

#include <array>
#include <string>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

// Runs a shell command line (bounded by coreutils' timeout) and returns its stdout and
// stderr together, and its exit status.
std::pair<std::string, int> run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(("timeout -s KILL 60 " + command + " 2>&1").c_str(), "r");
  if (!pipe) return {"popen failed", -1};
  std::array<char, 4096> chunk{};
  while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe))
    out.append(chunk.data(), n);
  const int status = ::pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

std::string ws_url_of(const ServerFixture& server) {
  return "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";
}

TEST(RefusalHint, ParlorLoadSaysWhichLimitRefusedIt) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 2;
  ServerFixture server(config);
  // One room of four seats needs four connections; the server admits two.
  const auto [out, status] =
      run(std::string(PARLOR_LOAD_PATH) + " --url " + ws_url_of(server) +
          " --game bigtwo --rooms 1 --seats 4 --duration 1 --ramp-ms 0 --json");
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("connection_handshake_429"), std::string::npos) << out;
  EXPECT_NE(out.find("parlor-load: server refused: too many connections from this address "
                     "(429); raise --max-connections-per-ip"),
            std::string::npos)
      << out;
}

TEST(RefusalHint, ParlorBotSaysWhichLimitRefusedIt) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 1;
  ServerFixture server(config);
  auto holder = server.player("holder");  // the one place this address has
  const auto [out, status] = run(std::string(PARLOR_BOT_PATH) + " --url " + ws_url_of(server) +
                                 " --create bigtwo --seats 2 --max-seconds 2 --quiet");
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("server refused: too many connections from this address (429)"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace parlor::testing
