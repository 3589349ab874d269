// Starts a real parlor-server in-process on an ephemeral loopback port for a test.
#pragma once

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

  unsigned short port() const { return port_; }
  server::Server& server() { return *server_; }
  std::unique_ptr<TestClient> connect(TestClient::Options options = {}) const;
  // Connects and says hello.
  std::unique_ptr<TestClient> player(const std::string& name) const;

 private:
  std::unique_ptr<server::Server> server_;
  unsigned short port_ = 0;
};

}  // namespace parlor::testing
