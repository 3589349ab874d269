// X-Forwarded-For over a real socket to a real server: believed from a --trusted-proxy only,
// and then only its last hop, for the per-IP limits. The test's own connections come from
// 127.0.0.1; whether that is a trusted proxy is the server's configuration.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/raw_ws_client.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

std::string status_line(const std::string& head) { return head.substr(0, head.find("\r\n")); }

// A WebSocket upgrade whose request carries these X-Forwarded-For fields; returns the client
// (kept open: it holds its place) and the status line of the answer.
std::pair<std::unique_ptr<RawWsClient>, std::string> upgrade(
    unsigned short port, const std::vector<std::string>& forwarded_for) {
  auto client = std::make_unique<RawWsClient>(port);
  std::string extra;
  for (const std::string& value : forwarded_for) extra += "X-Forwarded-For: " + value + "\r\n";
  std::string head = client->upgrade(kWebSocketKey, extra);
  return {std::move(client), status_line(head)};
}

constexpr const char* kSwitching = "HTTP/1.1 101 Switching Protocols";
constexpr const char* kTooMany = "HTTP/1.1 429 Too Many Requests";

TEST(ForwardedFor, AClientThatIsNoTrustedProxyCannotChooseItsAddress) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 2;
  config.trusted_proxies = {"10.255.0.1"};  // a proxy elsewhere: not this client
  ServerFixture server(config);
  auto [first, first_status] = upgrade(server.port(), {"198.51.100.1"});
  EXPECT_EQ(first_status, kSwitching);
  auto [second, second_status] = upgrade(server.port(), {"198.51.100.2"});
  EXPECT_EQ(second_status, kSwitching);
  // Each claims another address; all are 127.0.0.1, which has its two.
  auto [third, third_status] = upgrade(server.port(), {"198.51.100.3"});
  EXPECT_EQ(third_status, kTooMany);
  auto [fourth, fourth_status] = upgrade(server.port(), {"10.255.0.1, 198.51.100.4"});
  EXPECT_EQ(fourth_status, kTooMany);
}

TEST(ForwardedFor, BehindATrustedProxyEachForwardedClientHasItsOwnLimit) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 2;
  config.trusted_proxies = {"127.0.0.0/8"};  // this test is the proxy
  ServerFixture server(config);
  std::vector<std::unique_ptr<RawWsClient>> open;
  auto expect = [&](const std::vector<std::string>& forwarded_for, const std::string& status) {
    auto [client, got] = upgrade(server.port(), forwarded_for);
    EXPECT_EQ(got, status) << (forwarded_for.empty() ? "(none)" : forwarded_for.back());
    if (got == kSwitching) open.push_back(std::move(client));
  };
  // Far more than two connections from the proxy's address: none of them is refused for it.
  expect({"203.0.113.5"}, kSwitching);
  expect({"203.0.113.5"}, kSwitching);
  expect({"203.0.113.5"}, kTooMany);
  // Only the last hop counts: what a client wrote before it is no way past its limit ...
  expect({"203.0.113.6, 203.0.113.5"}, kTooMany);
  // ... nor a way to use up another client's places.
  expect({"203.0.113.5, 203.0.113.6"}, kSwitching);
  // Several fields are one list: the last field's last hop.
  expect({"203.0.113.5", "198.51.100.9, 203.0.113.6"}, kSwitching);
  expect({"203.0.113.6"}, kTooMany);
  // IPv6, and an IPv4 client written as a mapped IPv6 address is the same client.
  expect({"[2001:db8::7]:4711"}, kSwitching);
  expect({"2001:db8::7"}, kSwitching);
  expect({"2001:DB8:0::7"}, kTooMany);
  expect({"::ffff:203.0.113.5"}, kTooMany);
  // A request from the proxy itself (its health checks) names no client: the proxy's own
  // address is admitted as one.
  expect({}, kSwitching);
  // A last hop that is no address: refused, not guessed.
  expect({"unknown"}, "HTTP/1.1 400 Bad Request");
  expect({"203.0.113.7, "}, "HTTP/1.1 400 Bad Request");
  const std::string metrics = http_get(server.port(), "/metrics");
  EXPECT_NE(
      metrics.find("parlor_connections_refused_by_reason_total{reason=\"bad_forwarded_for\"} 2"),
      std::string::npos);
  EXPECT_NE(
      metrics.find("parlor_connections_refused_by_reason_total{reason=\"connections_per_ip\"} 5"),
      std::string::npos);
}

TEST(ForwardedFor, APlainRequestHoldsItsClientsPlaceOnlyUntilAnswered) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 1;
  config.trusted_proxies = {"127.0.0.1"};
  ServerFixture server(config);
  // One keep-alive connection from the proxy carries requests of one client after another,
  // and of several clients: each request is admitted as it comes and let go when answered.
  RawWsClient proxy(server.port());
  for (const char* client : {"203.0.113.5", "203.0.113.5", "203.0.113.6", "203.0.113.5"}) {
    // HEAD: an answer without a body, so that the next one starts where this one ends.
    const std::string head = proxy.request_head(
        std::string("HEAD /healthz HTTP/1.1\r\nHost: parlor\r\nX-Forwarded-For: ") + client +
        "\r\n\r\n");
    EXPECT_EQ(status_line(head), "HTTP/1.1 200 OK") << client;
  }
  // While 203.0.113.5 holds its one place with a WebSocket, its plain requests are refused too,
  // with the reason and when to try again; the proxy's connection stays open for others.
  auto [game, game_status] = upgrade(server.port(), {"203.0.113.5"});
  ASSERT_EQ(game_status, kSwitching);
  const std::string refused = proxy.request_head(
      "HEAD /healthz HTTP/1.1\r\nHost: parlor\r\nX-Forwarded-For: 203.0.113.5\r\n\r\n");
  EXPECT_EQ(status_line(refused), kTooMany);
  EXPECT_NE(refused.find("Retry-After: 5"), std::string::npos) << refused;
  const std::string other = proxy.request_head(
      "HEAD /healthz HTTP/1.1\r\nHost: parlor\r\nX-Forwarded-For: 203.0.113.6\r\n\r\n");
  EXPECT_EQ(status_line(other), "HTTP/1.1 200 OK");
}

}  // namespace
}  // namespace parlor::testing
