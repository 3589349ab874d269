// What the server answers at the edges of the protocol: requests dropped by the rate limit
// still carry their `re`; handshakes and frames outside RFC 6455 or the protocol get an HTTP
// status or a close code with a reason; refusals and failed connections are counted.
#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <thread>

#include "tests/support/raw_ws_client.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

namespace asio = boost::asio;

// /metrics once a connection place is free again: `leaving` goes, and the metrics request
// (a connection of its own) is retried until the server has seen it go.
std::string http_get_after_a_place_frees(ServerFixture& server,
                                         std::unique_ptr<TestClient> leaving) {
  leaving.reset();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string metrics;
  while (std::chrono::steady_clock::now() < deadline) {
    metrics = http_get(server.port(), "/metrics");
    if (metrics.starts_with("HTTP/1.1 200")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return metrics;
}

TEST(Hardening, RateLimitedRepliesCarryTheRequestsRe) {
  auto config = ServerFixture::test_config();
  config.rate_per_second = 1;
  config.rate_burst = 3;
  config.rate_strikes_before_close = 1000;
  ServerFixture server(config);
  auto client = server.player("alice");
  std::set<std::string> sent;
  for (int i = 0; i < 20; ++i) {
    const std::string id = "r" + std::to_string(i);
    // The id comes last, after a nested object holding an "id" of its own: only the
    // top-level one is the request's.
    client->send_text(R"({"type":"ping","x":{"id":"nested","s":"\"id\":1"},"id":")" + id + R"("})");
    sent.insert(id);
  }
  std::set<std::string> answered;
  int limited = 0;
  while (answered.size() < sent.size()) {
    auto frame = client->next(std::chrono::seconds(5));
    ASSERT_TRUE(frame) << "replies for " << answered.size() << " of " << sent.size();
    ASSERT_TRUE(frame->contains("re")) << frame->dump();
    const std::string re = (*frame)["re"].get<std::string>();
    EXPECT_TRUE(sent.contains(re)) << frame->dump();
    EXPECT_TRUE(answered.insert(re).second) << "two replies for " << re;
    if ((*frame).value("code", "") == "rate_limited") ++limited;
  }
  EXPECT_GE(limited, 10);
  // An integer id is echoed as an integer; a request without id gets no re. (Whether these
  // two are dropped too depends on how long the machine took since the flood: either way
  // the reply carries the request's id, or none.)
  client->send_text(R"({"type":"ping","id":12345})");
  client->send_text(R"({"type":"ping"})");
  auto with_number = client->next();
  ASSERT_TRUE(with_number);
  EXPECT_EQ((*with_number)["re"], 12345) << with_number->dump();
  auto without = client->next();
  ASSERT_TRUE(without);
  EXPECT_FALSE(without->contains("re")) << without->dump();
}

TEST(Hardening, WebSocketKeyMustBeSixteenBytesOfBase64) {
  ServerFixture server;
  for (const std::string key : {"c2hvcnQ=", "dGhlIHNhbXBsZSBub25jZQ",
                                "dGhlIHNhbXBsZSBub25j!Q==", "dGhlIHNhbXBsZSBub25jZSE=", "x"}) {
    RawWsClient client(server.port());
    const std::string head = client.upgrade(key);
    EXPECT_TRUE(head.starts_with("HTTP/1.1 400")) << key << ": " << head;
  }
  RawWsClient good(server.port());
  const std::string head = good.upgrade(kWebSocketKey);
  EXPECT_TRUE(head.starts_with("HTTP/1.1 101")) << head;
}

TEST(Hardening, BinaryFrameClosesWith1003AndAReason) {
  ServerFixture server;
  RawWsClient client(server.port());
  ASSERT_TRUE(client.upgrade(kWebSocketKey).starts_with("HTTP/1.1 101"));
  client.write(RawWsClient::frame(kBinary, R"({"type":"ping","id":1})"));
  auto frame = client.next();
  ASSERT_TRUE(frame) << "no answer to a binary frame";
  EXPECT_EQ(frame->opcode, kClose)
      << "a binary frame was answered as a request: " << frame->payload;
  EXPECT_EQ(frame->close_code(), 1003);
  EXPECT_FALSE(frame->close_reason().empty());
  EXPECT_NE(
      http_get(server.port(), "/metrics").find("parlor_protocol_closes_total{code=\"1003\"} 1"),
      std::string::npos);
}

TEST(Hardening, InvalidCloseCodesAreAnsweredWith1002) {
  ServerFixture server;
  for (const int code : {5000, 65535}) {
    RawWsClient client(server.port());
    ASSERT_TRUE(client.upgrade(kWebSocketKey).starts_with("HTTP/1.1 101"));
    client.write(RawWsClient::frame(kClose, RawWsClient::close_payload(code)));
    auto frame = client.next();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->opcode, kClose);
    EXPECT_EQ(frame->close_code(), 1002) << "close " << code << " echoed";
    EXPECT_NE(frame->close_reason().find(std::to_string(code)), std::string::npos);
  }
  // A valid application code (3000-4999) is still echoed.
  RawWsClient client(server.port());
  ASSERT_TRUE(client.upgrade(kWebSocketKey).starts_with("HTTP/1.1 101"));
  client.write(RawWsClient::frame(kClose, RawWsClient::close_payload(4321)));
  auto frame = client.next();
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->close_code(), 4321);
}

// The server fails the connection at the frame header; the client keeps writing the rest of
// its message. It must still read the close frame (with a reason) and an orderly end, not
// have its connection reset under it.
TEST(Hardening, OversizeMessageCloseHasAReasonAndSurvivesAClientStillSending) {
  ServerFixture server;
  RawWsClient client(server.port());
  ASSERT_TRUE(client.upgrade(kWebSocketKey).starts_with("HTTP/1.1 101"));
  const std::size_t size = 512 * 1024;
  const std::string message = RawWsClient::frame(kText, std::string(size, 'a'));
  boost::system::error_code write_ec;
  std::thread writer([&] {
    std::size_t sent = 0;
    while (sent < message.size() && !write_ec) {
      sent += client.socket().write_some(
          asio::buffer(message.data() + sent, std::min<std::size_t>(8192, message.size() - sent)),
          write_ec);
    }
  });
  writer.join();
  EXPECT_FALSE(write_ec) << "the server reset the connection while the client was sending: "
                         << write_ec.message();
  auto frame = client.next();
  ASSERT_TRUE(frame) << "the close frame was lost";
  EXPECT_EQ(frame->opcode, kClose);
  EXPECT_EQ(frame->close_code(), 1009);
  EXPECT_NE(frame->close_reason().find("16384"), std::string::npos) << frame->close_reason();
  EXPECT_EQ(client.end(), asio::error::eof);
  EXPECT_NE(
      http_get(server.port(), "/metrics").find("parlor_protocol_closes_total{code=\"1009\"} 1"),
      std::string::npos);
}

TEST(Hardening, ProtocolFailuresCloseWithAReasonAndAreCounted) {
  ServerFixture server;
  {
    // A reserved bit set (no extension was agreed): RFC 6455 5.2 fails the connection.
    RawWsClient client(server.port());
    ASSERT_TRUE(client.upgrade(kWebSocketKey).starts_with("HTTP/1.1 101"));
    std::string frame = RawWsClient::frame(kText, R"({"type":"ping"})");
    frame[0] = static_cast<char>(frame[0] | 0x40);
    client.write(frame);
    auto close = client.next();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->opcode, kClose);
    EXPECT_EQ(close->close_code(), 1002);
    EXPECT_FALSE(close->close_reason().empty());
  }
  {
    RawWsClient client(server.port());
    ASSERT_TRUE(client.upgrade(kWebSocketKey).starts_with("HTTP/1.1 101"));
    client.write(RawWsClient::frame(0x1, "{\"type\":\"ping\",\"x\":\"\xff\xfe\"}"));
    auto close = client.next();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->close_code(), 1007);
    EXPECT_NE(close->close_reason().find("UTF-8"), std::string::npos) << close->close_reason();
  }
  const std::string metrics = http_get(server.port(), "/metrics");
  EXPECT_NE(metrics.find("parlor_protocol_closes_total{code=\"1002\"} 1"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("parlor_protocol_closes_total{code=\"1007\"} 1"), std::string::npos)
      << metrics;
}

// The whole answer to a refused upgrade: status line, headers and body.
std::string refused_upgrade(unsigned short port) {
  return http_exchange(port,
                       "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
}

TEST(Hardening, OverTheConnectionLimitIsAnswered429) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 2;
  ServerFixture server(config);
  auto first = server.player("a");
  auto second = server.player("b");
  const std::string answer = refused_upgrade(server.port());
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 429")) << answer;
  EXPECT_NE(answer.find("Retry-After: "), std::string::npos) << answer;
  EXPECT_NE(answer.find("too many connections from this address"), std::string::npos) << answer;
  EXPECT_EQ(first->request({{"type", "ping"}})["type"], "pong");
  // (Metrics requests made before the server has seen `second` go are refused too: the
  // count is at least one.)
  const std::string metrics = http_get_after_a_place_frees(server, std::move(second));
  EXPECT_NE(
      metrics.find("parlor_connections_refused_by_reason_total{reason=\"connections_per_ip\"} "),
      std::string::npos)
      << metrics;
}

TEST(Hardening, OverTheHandshakeRateIsAnswered429) {
  auto config = ServerFixture::test_config();
  config.max_handshakes_per_ip_per_second = 2;
  ServerFixture server(config);
  std::string answer;
  // Within one second at most two connections are admitted; the third is refused. (On a
  // stalled machine the second may turn over between them: then try again.)
  for (int attempt = 0; attempt < 5 && !answer.starts_with("HTTP/1.1 429"); ++attempt) {
    RawWsClient one(server.port());
    RawWsClient two(server.port());
    answer = refused_upgrade(server.port());
  }
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 429")) << answer;
  EXPECT_NE(answer.find("Retry-After: 1"), std::string::npos) << answer;
  EXPECT_NE(answer.find("too many new connections"), std::string::npos) << answer;
}

TEST(Hardening, HeadersOverTheLimitAreAnswered431) {
  auto config = ServerFixture::test_config();
  config.max_http_header_bytes = 1024;
  ServerFixture server(config);
  const std::string answer =
      http_exchange(server.port(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
                                       std::string(64 * 1024, 'x') + "\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 431")) << answer.substr(0, 200);
  EXPECT_NE(answer.find("1024"), std::string::npos) << answer.substr(0, 400);
}

}  // namespace
}  // namespace parlor::testing
