// What the WebSocket session fuzz targets share: their settings byte, the upgrade request they
// hand the session, and the oracle on what the server wrote back — an HTTP 101 response
// followed by server frames that are well-formed: unmasked, no reserved bits, final, a text,
// close, ping or pong opcode, control payloads of at most 125 bytes; every text frame a JSON
// object with a string "type"; a close frame's code one a server may send (RFC 6455 7.4) and
// its reason valid UTF-8.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/text.h"
#include "server/config.h"
#include "tests/fuzz/fuzz_check.h"

namespace parlor::fuzz {

// An input's first byte:
//   bit 0  a tight rate limit (a burst of 3, then 1 a second), so that rate_limited replies and
//          the close after repeated strikes are reached;
//   bit 1  a 256-byte message limit, so that oversize messages are reached with short inputs;
//   bits 2-4  the size of the pieces the client's bytes reach the server in (0: all at once),
//          so that frames and headers arrive cut at every place.
struct SessionSettings {
  server::ServerConfig config;
  std::size_t piece_bytes = 0;
};

inline SessionSettings session_settings(std::uint8_t settings) {
  SessionSettings out;
  out.config.store = "none";
  out.config.rate_per_second = (settings & 1) != 0 ? 1 : 1e9;
  out.config.rate_burst = (settings & 1) != 0 ? 3 : 1e9;
  if ((settings & 2) != 0) out.config.max_message_bytes = 256;
  static constexpr std::size_t kPieceBytes[] = {0, 1, 2, 3, 7, 64, 512, 4096};
  out.piece_bytes = kPieceBytes[(settings >> 2) & 7];
  return out;
}

inline boost::beast::http::request<boost::beast::http::string_body> upgrade_request() {
  namespace http = boost::beast::http;
  http::request<http::string_body> request{http::verb::get, "/ws", 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::upgrade, "websocket");
  request.set(http::field::connection, "upgrade");
  request.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  request.set(http::field::sec_websocket_version, "13");
  return request;
}

inline bool valid_close_code(std::uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) ||
         (code >= 3000 && code <= 4999);
}

// Reads the server's frames after the upgrade response, checking each.
inline void check_server_bytes(std::string_view out) {
  require(out.starts_with("HTTP/1.1 101"), "the upgrade was not answered with 101");
  const auto head_end = out.find("\r\n\r\n");
  require(head_end != std::string_view::npos, "the 101 response has no end");
  std::size_t at = head_end + 4;
  while (at < out.size()) {
    require(out.size() - at >= 2, "a frame header is cut short");
    const auto b0 = static_cast<unsigned char>(out[at]);
    const auto b1 = static_cast<unsigned char>(out[at + 1]);
    at += 2;
    require((b0 & 0x80) != 0, "a server frame is not final");
    require((b0 & 0x70) == 0, "a server frame has reserved bits set");
    require((b1 & 0x80) == 0, "a server frame is masked");
    const unsigned opcode = b0 & 0x0f;
    require(opcode == 1 || opcode == 8 || opcode == 9 || opcode == 10,
            "a server frame has opcode " + std::to_string(opcode));
    std::uint64_t length = b1 & 0x7f;
    const std::size_t extra = length == 126 ? 2 : length == 127 ? 8 : 0;
    require(out.size() - at >= extra, "a frame length is cut short");
    if (extra != 0) {
      length = 0;
      for (std::size_t i = 0; i < extra; ++i)
        length = (length << 8) | static_cast<unsigned char>(out[at + i]);
      at += extra;
    }
    require(length <= out.size() - at, "a frame payload is cut short");
    const std::string_view payload = out.substr(at, static_cast<std::size_t>(length));
    at += static_cast<std::size_t>(length);
    if (opcode == 1) {
      const auto json = nlohmann::json::parse(payload, nullptr, false);
      require(json.is_object() && json.contains("type") && json["type"].is_string(),
              "a text frame is not a JSON object with a type: " + std::string(payload));
      continue;
    }
    require(payload.size() <= 125, "a control frame's payload is over 125 bytes");
    if (opcode == 8 && !payload.empty()) {
      require(payload.size() >= 2, "a close frame's payload is one byte");
      const auto code = static_cast<std::uint16_t>(static_cast<unsigned char>(payload[0]) << 8 |
                                                   static_cast<unsigned char>(payload[1]));
      require(valid_close_code(code), "the server closed with code " + std::to_string(code));
      const std::string_view reason = payload.substr(2);
      require(parlor::protocol::truncate_utf8(reason, reason.size()).size() == reason.size(),
              "a close reason is not valid UTF-8");
    }
  }
}

// Runs what is ready on `io` until nothing is, or for at most `limit` handlers (a session
// that keeps posting work would be a bug of its own: the bound keeps one input finite).
inline void run_ready(boost::asio::io_context& io, std::size_t limit = 100'000) {
  for (std::size_t ran = 0; ran < limit;) {
    const std::size_t now = io.poll();
    if (now == 0) return;
    ran += now;
    io.restart();
  }
  require(false, "the session kept the event loop busy with no input");
}

}  // namespace parlor::fuzz
