#include "tests/support/server_fixture.h"

#include "server/log.h"

namespace parlor::testing {

server::ServerConfig ServerFixture::test_config() {
  server::ServerConfig config;
  config.port = 0;
  config.dev = true;
  config.threads = 2;
  config.rate_per_second = 10000;
  config.rate_burst = 10000;
  config.max_handshakes_per_ip_per_second = 10000;
  config.bot_delay = std::chrono::milliseconds(1);
  config.static_dir = PARLOR_TEST_STATIC_DIR;
  config.store = "none";  // tests of durability turn the store on with their own directory
  return config;
}

ServerFixture::ServerFixture(server::ServerConfig config) {
  server::set_log_quiet(true);
  server_ = std::make_unique<server::Server>(std::move(config));
  server_->start();
  port_ = server_->endpoint().port();
}

ServerFixture::~ServerFixture() { server_->stop(); }

std::unique_ptr<TestClient> ServerFixture::connect(TestClient::Options options) const {
  return std::make_unique<TestClient>("127.0.0.1", port_, options);
}

std::unique_ptr<TestClient> ServerFixture::player(const std::string& name) const {
  auto client = connect();
  client->hello(name);
  return client;
}

}  // namespace parlor::testing
