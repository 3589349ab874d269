// Starts a real parlor-server in-process on an ephemeral loopback port for a test.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "server/config.h"
#include "server/server.h"
#include "tests/support/test_client.h"

namespace parlor::testing {

class ServerFixture {
 public:
  explicit ServerFixture(server::ServerConfig config = test_config());
  ~ServerFixture();

  // Defaults for tests: port 0, dev mode, 2 threads, generous rate limits, quiet logs.
  static server::ServerConfig test_config();
  // test_config() serving TLS with a self-signed certificate made in `dir` (openssl CLI).
  static server::ServerConfig tls_config(const std::filesystem::path& dir);

  unsigned short port() const { return port_; }
  server::Server& server() { return *server_; }
  std::unique_ptr<TestClient> connect(TestClient::Options options = {}) const;
  // Connects and says hello.
  std::unique_ptr<TestClient> player(const std::string& name) const;

 private:
  std::unique_ptr<server::Server> server_;
  unsigned short port_ = 0;
};

// A raw HTTP exchange on 127.0.0.1:port: `request` goes out exactly as written (so a target
// reaches the server unnormalized); returns everything read until the server closes.
std::string http_exchange(unsigned short port, const std::string& request);
// GET `target` with Connection: close.
std::string http_get(unsigned short port, const std::string& target);

}  // namespace parlor::testing
