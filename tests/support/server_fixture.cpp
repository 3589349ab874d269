#include "tests/support/server_fixture.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <cstdlib>
#include <stdexcept>

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

server::ServerConfig ServerFixture::tls_config(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  auto config = test_config();
  config.tls_cert = (dir / "cert.pem").string();
  config.tls_key = (dir / "key.pem").string();
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout " +
      config.tls_key + " -out " + config.tls_cert + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("openssl could not make a test certificate");
  }
  return config;
}

std::string http_exchange(unsigned short port, const std::string& request) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  boost::asio::write(socket, boost::asio::buffer(request));
  std::string response;
  boost::system::error_code ec;
  std::array<char, 4096> chunk{};
  while (!ec) {
    const std::size_t n = socket.read_some(boost::asio::buffer(chunk), ec);
    response.append(chunk.data(), n);
  }
  return response;
}

std::string http_get(unsigned short port, const std::string& target) {
  return http_exchange(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
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
