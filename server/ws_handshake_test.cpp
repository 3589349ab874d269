#include "server/ws_handshake.h"

#include <gtest/gtest.h>

#include <string>

namespace parlor::server {
namespace {

namespace http = boost::beast::http;

http::request<http::string_body> upgrade(const char* version = "13") {
  http::request<http::string_body> request{http::verb::get, "/ws", 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::upgrade, "websocket");
  request.set(http::field::connection, "Upgrade");
  request.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  if (version) request.set(http::field::sec_websocket_version, version);
  return request;
}

TEST(WsHandshake, AcceptValueOfRfc6455sExample) {
  EXPECT_EQ(websocket_accept_value("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WsHandshake, SwitchesProtocolsAgreeingToNothingElse) {
  auto request = upgrade();
  request.set(http::field::sec_websocket_extensions, "permessage-deflate");
  request.set(http::field::sec_websocket_protocol, "chat");
  const UpgradeAnswer answer = answer_upgrade(request);
  EXPECT_TRUE(answer.accepted);
  EXPECT_TRUE(answer.bytes.starts_with("HTTP/1.1 101 Switching Protocols\r\n")) << answer.bytes;
  EXPECT_NE(answer.bytes.find("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            std::string::npos);
  EXPECT_NE(answer.bytes.find("\r\nUpgrade: websocket\r\n"), std::string::npos);
  EXPECT_EQ(answer.bytes.find("Sec-WebSocket-Extensions"), std::string::npos);
  EXPECT_EQ(answer.bytes.find("Sec-WebSocket-Protocol"), std::string::npos);
  EXPECT_TRUE(answer.bytes.ends_with("\r\n\r\n"));
}

TEST(WsHandshake, RefusalsSayWhy) {
  UpgradeAnswer answer = answer_upgrade(upgrade("8"));
  EXPECT_FALSE(answer.accepted);
  EXPECT_TRUE(answer.bytes.starts_with("HTTP/1.1 426 ")) << answer.bytes;
  EXPECT_NE(answer.bytes.find("\r\nSec-WebSocket-Version: 13\r\n"), std::string::npos);

  answer = answer_upgrade(upgrade(nullptr));
  EXPECT_TRUE(answer.bytes.starts_with("HTTP/1.1 400 ")) << answer.bytes;

  auto no_host = upgrade();
  no_host.erase(http::field::host);
  answer = answer_upgrade(no_host);
  EXPECT_TRUE(answer.bytes.starts_with("HTTP/1.1 400 ")) << answer.bytes;
  EXPECT_NE(answer.bytes.find("Host"), std::string::npos);

  // The body's length is what Content-Length says.
  const auto body_at = answer.bytes.find("\r\n\r\n") + 4;
  const auto length_at = answer.bytes.find("Content-Length: ") + 16;
  EXPECT_EQ(std::stoul(answer.bytes.substr(length_at)), answer.bytes.size() - body_at);
}

}  // namespace
}  // namespace parlor::server
