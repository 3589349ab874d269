// A WebSocket client written byte by byte over a plain TCP socket, for what a well-behaved
// library will not send: bad keys, reserved bits and opcodes, unmasked or fragmented control
// frames, invalid UTF-8 split across frames, invalid close codes, messages far over the
// limit, a message cut into single bytes. It reads the server's frames as they are on the
// wire, so a test can check each one (opcode, FIN, payload, close code and reason) and how
// the TCP stream ended.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace parlor::testing {

// A key RFC 6455 accepts: the base64 encoding of 16 bytes (the RFC's own example).
inline constexpr const char* kWebSocketKey = "dGhlIHNhbXBsZSBub25jZQ==";

// Opcodes of RFC 6455 5.2.
enum Opcode : unsigned {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA,
};

class RawWsClient {
 public:
  // A client frame. `rsv` holds the three reserved bits as they sit in the first byte
  // (0x40 RSV1, 0x20 RSV2, 0x10 RSV3). The payload is masked with `mask` unless `masked`
  // is false (a client must mask; a server must fail a connection that does not).
  struct Out {
    unsigned opcode = kText;
    std::string payload = {};
    bool fin = true;
    unsigned rsv = 0;
    bool masked = true;
    std::uint32_t mask = 0x37fa213d;
  };
  // A server frame as read from the wire.
  struct Frame {
    unsigned opcode = 0;
    bool fin = true;
    unsigned rsv = 0;
    bool masked = false;
    std::string payload;
    // A close frame's status code (0 when the payload has none) and reason.
    int close_code() const;
    std::string close_reason() const;
  };

  explicit RawWsClient(unsigned short port);

  // Sends an upgrade request for /ws with this key and any extra header lines (each ending
  // in \r\n); returns the response head (through the blank line), or what arrived before
  // the server closed.
  std::string upgrade(const std::string& key = kWebSocketKey, const std::string& extra = "");
  // Sends `request` as it is (any HTTP request) and returns the response head, as upgrade().
  std::string request_head(const std::string& request);
  // upgrade() that must succeed: throws unless the answer is 101.
  void open();

  // The wire bytes of a client frame.
  static std::string frame(const Out& out);
  static std::string frame(unsigned opcode, const std::string& payload) {
    return frame(Out{.opcode = opcode, .payload = payload});
  }
  static std::string close_payload(int code, const std::string& reason = "");

  // Writes bytes as they are. Returns false when the server had reset the connection.
  bool write(const std::string& bytes);
  void send(const Out& out) { write(frame(out)); }
  // Writes `bytes` in pieces of `piece` bytes with `pause` between them (a slow client, or
  // one whose frames arrive cut anywhere).
  bool write_in_pieces(const std::string& bytes, std::size_t piece,
                       std::chrono::milliseconds pause = std::chrono::milliseconds(0));

  // The next server frame, or nullopt when the stream ended or `timeout` passed first.
  std::optional<Frame> next(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Whether nothing at all arrives, and the stream stays open, for `quiet`.
  bool silent_for(std::chrono::milliseconds quiet);

  // How the stream ended after everything left was read: eof (an orderly close), a reset,
  // or timed_out when it was still open at the timeout.
  boost::system::error_code end(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  boost::asio::ip::tcp::socket& socket() { return socket_; }

 private:
  bool fill(std::chrono::milliseconds timeout);

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::string input_;
  boost::system::error_code ended_;
};

}  // namespace parlor::testing
