// The shipped proxy configurations (deploy/nginx/parlor.conf, deploy/haproxy/parlor-tls.cfg)
// run for real: Debian's nginx and HAProxy on loopback, with a throwaway self-signed
// certificate, in front of the real parlor-server started with --trusted-proxy. Through each:
//
//   - a whole game over wss:// (four players, every frame scanned for other seats' cards);
//   - /readyz answers 200 over https, and http:// answers 301 to https://;
//   - the server knows each client by the address the proxy forwarded: its log says so, and
//     its per-IP connection limit refuses a client over it while another client behind the
//     same proxy is admitted.
//
// The proxy connects to the server from 127.0.0.3 (proxy_bind, HAProxy's `source`) and the
// clients come from 127.0.0.1 or 127.0.0.4, so that the proxy's address and its clients'
// differ on one machine. Skipped, saying so, when nginx or HAProxy is not installed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "games/registry.h"
#include "games/testing/self_play.h"
#include "tests/support/child_process.h"
#include "tests/support/game_driver.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_process.h"
#include "tests/support/shell_command.h"
#include "tests/support/test_client.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kProxySource = "127.0.0.3";  // the proxy's address, as the server sees it
constexpr const char* kOtherClient = "127.0.0.4";  // a second client behind the proxy
constexpr int kMaxConnectionsPerIp = 5;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A template of deploy/ with its @NAME@ placeholders filled; throws if one is left.
std::string filled(const fs::path& file, const std::map<std::string, std::string>& values) {
  std::string text = read_file(file);
  for (const auto& [name, value] : values) {
    const std::string placeholder = "@" + name + "@";
    for (auto at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size())) {
      text.replace(at, placeholder.size(), value);
    }
  }
  // Outside comments (which name the placeholders), none may be left.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch left;
    const auto code = line.substr(0, line.find('#'));
    if (std::regex_search(code, left, std::regex("@[A-Z_]+@"))) {
      throw std::runtime_error(file.string() + ": placeholder " + left.str() + " not filled");
    }
  }
  return text;
}

std::string shell(const std::string& command) {
  std::string output;
  const int status = run_shell(command, output);
  return status == 0 ? output : "(exit " + std::to_string(status) + ") " + output;
}

// One proxy in front of the server, started from its shipped configuration.
struct Proxy {
  std::unique_ptr<ChildProcess> process;
  unsigned short http_port = 0;
  unsigned short https_port = 0;
};

Proxy start_nginx(const fs::path& dir, unsigned short server_port) {
  Proxy proxy;
  proxy.http_port = free_loopback_port();
  proxy.https_port = free_loopback_port();
  write_file(dir / "parlor.conf",
             filled(fs::path(PARLOR_SOURCE_DIR) / "deploy/nginx/parlor.conf",
                    {{"HTTP_LISTEN", "127.0.0.1:" + std::to_string(proxy.http_port)},
                     {"HTTPS_LISTEN", "127.0.0.1:" + std::to_string(proxy.https_port)},
                     {"SERVER_NAME", "localhost"},
                     {"CERT", (dir / "cert.pem").string()},
                     {"KEY", (dir / "key.pem").string()},
                     {"UPSTREAM", "127.0.0.1:" + std::to_string(server_port)}}));
  // The main configuration Debian's /etc/nginx/nginx.conf would be: the site file inside
  // `http`, every file nginx writes in the test's directory, and the proxy's own address.
  const std::string d = dir.string();
  fs::create_directories(dir / "tmp");
  write_file(dir / "nginx.conf",
             "worker_processes 1;\npid " + d + "/nginx.pid;\nerror_log " + d +
                 "/error.log info;\nevents { worker_connections 256; }\n" +
                 "http {\n  access_log " + d + "/access.log;\n" + "  client_body_temp_path " + d +
                 "/tmp/body;\n" + "  proxy_temp_path " + d + "/tmp/proxy;\n" +
                 "  fastcgi_temp_path " + d + "/tmp/fastcgi;\n" + "  uwsgi_temp_path " + d +
                 "/tmp/uwsgi;\n" + "  scgi_temp_path " + d + "/tmp/scgi;\n" + "  proxy_bind " +
                 kProxySource + ";\n" + "  include " + d + "/parlor.conf;\n}\n");
  proxy.process = std::make_unique<ChildProcess>(
      std::vector<std::string>{"/usr/sbin/nginx", "-p", d + "/", "-c", d + "/nginx.conf", "-e",
                               d + "/error.log", "-g", "daemon off;"},
      dir / "nginx.out");
  return proxy;
}

Proxy start_haproxy(const fs::path& dir, unsigned short server_port) {
  Proxy proxy;
  proxy.http_port = free_loopback_port();
  proxy.https_port = free_loopback_port();
  // HAProxy takes the certificate and its key in one file.
  write_file(dir / "parlor.pem", read_file(dir / "cert.pem") + read_file(dir / "key.pem"));
  std::string config = filled(fs::path(PARLOR_SOURCE_DIR) / "deploy/haproxy/parlor-tls.cfg",
                              {{"HTTP_BIND", "127.0.0.1:" + std::to_string(proxy.http_port)},
                               {"HTTPS_BIND", "127.0.0.1:" + std::to_string(proxy.https_port)},
                               {"PEM", (dir / "parlor.pem").string()},
                               {"SERVER", "127.0.0.1:" + std::to_string(server_port)}});
  // The backend is the file's last section: the proxy's own address goes there.
  config += std::string("    source ") + kProxySource + "\n";
  write_file(dir / "haproxy.cfg", config);
  proxy.process = std::make_unique<ChildProcess>(
      std::vector<std::string>{"/usr/sbin/haproxy", "-db", "-f", (dir / "haproxy.cfg").string()},
      dir / "haproxy.out");
  return proxy;
}

// A client over wss:// (the proxy's certificate is not checked: self-signed), connecting from
// `from` when given.
std::unique_ptr<TestClient> wss_client(unsigned short port, const std::string& from = "") {
  TestClient::Options options;
  options.tls = true;
  return std::make_unique<TestClient>("127.0.0.1", port, options, from);
}

class ProxyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ProxyTest, PlaysAGameOverWssAndKnowsEachClientsAddress) {
  const std::string name = GetParam();
  const fs::path binary = name == "nginx" ? "/usr/sbin/nginx" : "/usr/sbin/haproxy";
  if (!fs::exists(binary)) {
    GTEST_SKIP() << "skipped: " << binary << " is not installed (deploy/install-deps.sh "
                 << "installs it)";
  }
  const auto began = Clock::now();
  const fs::path dir = scratch_dir("proxy_test", name);
  std::string openssl;
  ASSERT_EQ(
      run_shell("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
                "-nodes -days 1 -subj /CN=localhost "
                "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
                    (dir / "key.pem").string() + " -out " + (dir / "cert.pem").string() + " 2>&1",
                openssl),
      0)
      << openssl;

  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--store", "none", "--dev", "--threads", "2", "--static-dir", dir.string(),
                        "--trusted-proxy", kProxySource, "--max-connections-per-ip",
                        std::to_string(kMaxConnectionsPerIp)},
                       dir / "logs", "server");
  ASSERT_EQ(server.start(), "");
  Proxy proxy =
      name == "nginx" ? start_nginx(dir, server.port()) : start_haproxy(dir, server.port());
  ASSERT_EQ(proxy.process->start(), "");
  ASSERT_TRUE(wait_for_listener(proxy.https_port, 10s))
      << name << " does not listen:\n"
      << tail_of(proxy.process->log(), 20) << tail_of(dir / "error.log", 20);
  const std::string https = "https://127.0.0.1:" + std::to_string(proxy.https_port);

  // /readyz over https (HAProxy answers once its first health checks have passed).
  std::string readyz;
  for (const auto deadline = Clock::now() + 10s; Clock::now() < deadline;) {
    readyz = shell("curl -sk -o /dev/null -w '%{http_code}' " + https + "/readyz");
    if (readyz == "200") break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(readyz, "200") << tail_of(proxy.process->log(), 20);

  // http:// answers 301 to the same path over https.
  const std::string redirect =
      shell("curl -s -o /dev/null -w '%{http_code} %{redirect_url}' http://localhost:" +
            std::to_string(proxy.http_port) + "/readyz");
  EXPECT_TRUE(std::regex_match(redirect, std::regex("301 https://localhost(:[0-9]+)?/readyz")))
      << redirect;

  // A whole game over wss://, four players through the proxy.
  const std::uint64_t seed = test_seed(19);
  std::cout << "seed " << seed << "\n";
  std::vector<std::unique_ptr<TestClient>> players;
  for (int s = 0; s < 4; ++s) {
    players.push_back(wss_client(proxy.https_port));
    ASSERT_EQ(players.back()->hello("p" + std::to_string(s))["type"], "welcome");
  }
  const Json created = players[0]->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 4}, {"options", {{"seed", seed}}}});
  ASSERT_EQ(created["type"], "room_created") << created;
  const std::string room = created["room"];
  for (int s = 1; s < 4; ++s) {
    const Json joined = players[static_cast<std::size_t>(s)]->request(
        {{"type", "join_room"}, {"room", room}, {"seat", s}});
    ASSERT_EQ(joined["type"], "joined") << joined;
  }
  ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  std::string error;
  const auto mirror = create_game(*find_game("bigtwo"), Json::object(), 4, seed, nullptr, error);
  ASSERT_TRUE(mirror) << error;
  std::vector<TestClient*> seats;
  for (auto& player : players) {
    ASSERT_TRUE(player->next_of("state")) << "no first state push";
    seats.push_back(player.get());
  }
  const DriveResult result = drive_game(seats, {}, room, *mirror, 0, seed);
  EXPECT_EQ(result.failure, "");
  EXPECT_TRUE(result.finished) << "after " << result.moves << " moves";

  // Per real client: 127.0.0.1 holds four of its five connections; a fifth is admitted and a
  // sixth refused, while 127.0.0.4, behind the same proxy, is still welcome.
  auto fifth = wss_client(proxy.https_port);
  EXPECT_EQ(fifth->hello("fifth")["type"], "welcome");
  EXPECT_THROW(wss_client(proxy.https_port), std::exception)
      << "a sixth connection of one client through the proxy";
  const auto other = wss_client(proxy.https_port, kOtherClient);
  EXPECT_EQ(other->hello("other")["type"], "welcome");

  // The server's log names the clients' addresses, never the proxy's.
  const std::string log = read_file(server.log());
  EXPECT_NE(log.find(" joined from 127.0.0.1\n"), std::string::npos) << log;
  EXPECT_NE(log.find(" joined from 127.0.0.4\n"), std::string::npos) << log;
  EXPECT_EQ(log.find(std::string(" joined from ") + kProxySource), std::string::npos) << log;
  EXPECT_NE(log.find(std::string("refused a request from 127.0.0.1 via ") + kProxySource +
                     ": too many connections"),
            std::string::npos)
      << log;

  players.clear();
  fifth.reset();
  std::cout << name << ": stopped (" << proxy.process->stop() << ") after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()
            << " ms" << std::endl;
  if (!HasFailure()) {
    fs::remove_all(dir);
    std::error_code ignored;
    fs::remove(dir.parent_path(), ignored);  // the test program's directory, once empty
  }
}

INSTANTIATE_TEST_SUITE_P(Proxies, ProxyTest, ::testing::Values("nginx", "haproxy"),
                         [](const ::testing::TestParamInfo<std::string>& proxy) {
                           return proxy.param;
                         });

}  // namespace
}  // namespace parlor::testing
