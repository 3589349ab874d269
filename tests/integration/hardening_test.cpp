// What the server answers at the edges of the protocol: requests dropped by the rate limit
// still carry their `re`; handshakes and frames outside RFC 6455 or the protocol get an HTTP
// status or a close code with a reason; refusals and failed connections are counted.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <poll.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

namespace asio = boost::asio;

// A WebSocket client written byte by byte over a plain socket, for what a well-behaved
// library will not send: bad keys, binary frames, invalid close codes, a message far over
// the limit while the server is closing.
class RawClient {
 public:
  explicit RawClient(unsigned short port) : socket_(io_) {
    socket_.connect({asio::ip::make_address("127.0.0.1"), port});
  }

  // Sends an upgrade request with this key; returns the response head (through the blank
  // line), or what arrived before the server closed.
  std::string upgrade(const std::string& key) {
    write(
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: "
        "Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " +
        key + "\r\n\r\n");
    while (true) {
      const auto end = input_.find("\r\n\r\n");
      if (end != std::string::npos) {
        std::string head = input_.substr(0, end + 4);
        input_.erase(0, end + 4);
        return head;
      }
      if (!fill(std::chrono::seconds(5))) return input_;
    }
  }

  void write(const std::string& bytes) { asio::write(socket_, asio::buffer(bytes)); }

  // A client frame: FIN, the opcode, masked (with a zero mask, which RFC 6455 allows).
  static std::string frame(unsigned opcode, const std::string& payload) {
    std::string out;
    out.push_back(static_cast<char>(0x80 | opcode));
    header_length(out, payload.size());
    out.append(4, '\0');
    return out + payload;
  }
  static void header_length(std::string& out, std::size_t size) {
    if (size < 126) {
      out.push_back(static_cast<char>(0x80 | size));
    } else if (size < 65536) {
      out.push_back(static_cast<char>(0x80 | 126));
      out.push_back(static_cast<char>(size >> 8));
      out.push_back(static_cast<char>(size & 0xff));
    } else {
      out.push_back(static_cast<char>(0x80 | 127));
      for (int shift = 56; shift >= 0; shift -= 8)
        out.push_back(static_cast<char>((size >> shift) & 0xff));
    }
  }

  struct Frame {
    unsigned opcode = 0;
    std::string payload;
    int close_code() const {
      return payload.size() >= 2 ? (static_cast<unsigned char>(payload[0]) << 8) |
                                       static_cast<unsigned char>(payload[1])
                                 : 0;
    }
    std::string close_reason() const { return payload.size() > 2 ? payload.substr(2) : ""; }
  };

  // The next server frame (unmasked, short), or nullopt on close, reset or timeout.
  std::optional<Frame> next(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (input_.size() >= 2) {
        std::size_t length = static_cast<unsigned char>(input_[1]) & 0x7f;
        std::size_t offset = 2;
        if (length == 126 && input_.size() >= 4) {
          length =
              (static_cast<unsigned char>(input_[2]) << 8) | static_cast<unsigned char>(input_[3]);
          offset = 4;
        }
        if (length < 127 && input_.size() >= offset + length) {
          Frame out{static_cast<unsigned>(input_[0]) & 0x0f, input_.substr(offset, length)};
          input_.erase(0, offset + length);
          return out;
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !fill(left)) return std::nullopt;
    }
  }

  // How the stream ended after everything was read: eof (an orderly close), a reset, or
  // still open at the timeout.
  boost::system::error_code end(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    while (fill(timeout)) {
    }
    return ended_;
  }

  asio::ip::tcp::socket& socket() { return socket_; }

 private:
  bool fill(std::chrono::milliseconds timeout) {
    pollfd ready{socket_.native_handle(), POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(timeout.count())) != 1) {
      ended_ = asio::error::timed_out;
      return false;
    }
    std::array<char, 4096> buffer{};
    boost::system::error_code ec;
    const std::size_t n = socket_.read_some(asio::buffer(buffer), ec);
    if (ec) {
      ended_ = ec;
      return false;
    }
    input_.append(buffer.data(), n);
    return true;
  }

  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  std::string input_;
  boost::system::error_code ended_;
};

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

constexpr const char* kGoodKey = "dGhlIHNhbXBsZSBub25jZQ==";

std::string close_payload(int code) {
  return {static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
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
    RawClient client(server.port());
    const std::string head = client.upgrade(key);
    EXPECT_TRUE(head.starts_with("HTTP/1.1 400")) << key << ": " << head;
  }
  RawClient good(server.port());
  const std::string head = good.upgrade(kGoodKey);
  EXPECT_TRUE(head.starts_with("HTTP/1.1 101")) << head;
}

TEST(Hardening, BinaryFrameClosesWith1003AndAReason) {
  ServerFixture server;
  RawClient client(server.port());
  ASSERT_TRUE(client.upgrade(kGoodKey).starts_with("HTTP/1.1 101"));
  client.write(RawClient::frame(0x2, R"({"type":"ping","id":1})"));
  auto frame = client.next();
  ASSERT_TRUE(frame) << "no answer to a binary frame";
  EXPECT_EQ(frame->opcode, 0x8u) << "a binary frame was answered as a request: " << frame->payload;
  EXPECT_EQ(frame->close_code(), 1003);
  EXPECT_FALSE(frame->close_reason().empty());
  EXPECT_NE(
      http_get(server.port(), "/metrics").find("parlor_protocol_closes_total{code=\"1003\"} 1"),
      std::string::npos);
}

TEST(Hardening, InvalidCloseCodesAreAnsweredWith1002) {
  ServerFixture server;
  for (const int code : {5000, 65535}) {
    RawClient client(server.port());
    ASSERT_TRUE(client.upgrade(kGoodKey).starts_with("HTTP/1.1 101"));
    client.write(RawClient::frame(0x8, close_payload(code)));
    auto frame = client.next();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->opcode, 0x8u);
    EXPECT_EQ(frame->close_code(), 1002) << "close " << code << " echoed";
    EXPECT_NE(frame->close_reason().find(std::to_string(code)), std::string::npos);
  }
  // A valid application code (3000-4999) is still echoed.
  RawClient client(server.port());
  ASSERT_TRUE(client.upgrade(kGoodKey).starts_with("HTTP/1.1 101"));
  client.write(RawClient::frame(0x8, close_payload(4321)));
  auto frame = client.next();
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->close_code(), 4321);
}

// The server fails the connection at the frame header; the client keeps writing the rest of
// its message. It must still read the close frame (with a reason) and an orderly end, not
// have its connection reset under it.
TEST(Hardening, OversizeMessageCloseHasAReasonAndSurvivesAClientStillSending) {
  ServerFixture server;
  RawClient client(server.port());
  ASSERT_TRUE(client.upgrade(kGoodKey).starts_with("HTTP/1.1 101"));
  const std::size_t size = 512 * 1024;
  std::string message;
  message.push_back(static_cast<char>(0x81));
  RawClient::header_length(message, size);
  message.append(4, '\0');
  message.append(size, 'a');
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
  EXPECT_EQ(frame->opcode, 0x8u);
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
    RawClient client(server.port());
    ASSERT_TRUE(client.upgrade(kGoodKey).starts_with("HTTP/1.1 101"));
    std::string frame = RawClient::frame(0x1, R"({"type":"ping"})");
    frame[0] = static_cast<char>(frame[0] | 0x40);
    client.write(frame);
    auto close = client.next();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->opcode, 0x8u);
    EXPECT_EQ(close->close_code(), 1002);
    EXPECT_FALSE(close->close_reason().empty());
  }
  {
    RawClient client(server.port());
    ASSERT_TRUE(client.upgrade(kGoodKey).starts_with("HTTP/1.1 101"));
    client.write(RawClient::frame(0x1, "{\"type\":\"ping\",\"x\":\"\xff\xfe\"}"));
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
    RawClient one(server.port());
    RawClient two(server.port());
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
