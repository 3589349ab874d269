#include "server/ws_handshake.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <array>

namespace parlor::server {

namespace http = boost::beast::http;

namespace {

UpgradeAnswer refuse(int status, std::string_view status_text, std::string_view extra_headers,
                     std::string_view reason) {
  std::string body(reason);
  body += '\n';
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(status_text) +
                    "\r\nServer: parlor\r\nContent-Type: text/plain; charset=utf-8\r\n" +
                    std::string(extra_headers) +
                    "Connection: close\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\n\r\n" + body;
  return {false, std::move(out)};
}

}  // namespace

std::string websocket_accept_value(std::string_view key) {
  static constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  std::string input(key);
  input += kGuid;
  std::array<unsigned char, SHA_DIGEST_LENGTH> digest{};
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest.data());
  std::array<unsigned char, 4 * ((SHA_DIGEST_LENGTH + 2) / 3) + 1> encoded{};
  const int size = EVP_EncodeBlock(encoded.data(), digest.data(), SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<const char*>(encoded.data()), static_cast<std::size_t>(size));
}

UpgradeAnswer answer_upgrade(const http::request<http::string_body>& request) {
  if (request.find(http::field::host) == request.end()) {
    return refuse(400, "Bad Request", "", "a WebSocket upgrade needs a Host header");
  }
  const auto key = request.find(http::field::sec_websocket_key);
  if (key == request.end()) {
    return refuse(400, "Bad Request", "", "a WebSocket upgrade needs Sec-WebSocket-Key");
  }
  const auto version = request.find(http::field::sec_websocket_version);
  if (version == request.end()) {
    return refuse(400, "Bad Request", "Sec-WebSocket-Version: 13\r\n",
                  "a WebSocket upgrade needs Sec-WebSocket-Version: 13");
  }
  if (version->value() != "13") {
    return refuse(426, "Upgrade Required", "Sec-WebSocket-Version: 13\r\n",
                  "this server speaks WebSocket version 13");
  }
  const std::string_view key_text(key->value().data(), key->value().size());
  return {true,
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Accept: " +
              websocket_accept_value(key_text) + "\r\nServer: parlor\r\n\r\n"};
}

}  // namespace parlor::server
