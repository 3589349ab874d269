#include "bots/net/ws_url.h"

#include <gtest/gtest.h>

namespace parlor::client {
namespace {

TEST(WsUrl, SplitsHostPortAndPath) {
  std::string error;
  auto url = parse_ws_url("ws://127.0.0.1:8080/ws", error);
  ASSERT_TRUE(url) << error;
  EXPECT_FALSE(url->tls);
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, "8080");
  EXPECT_EQ(url->path, "/ws");
}

TEST(WsUrl, DefaultsPortAndPath) {
  std::string error;
  auto plain = parse_ws_url("ws://example.org", error);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->port, "80");
  EXPECT_EQ(plain->path, "/");
  auto secure = parse_ws_url("wss://example.org/ws", error);
  ASSERT_TRUE(secure);
  EXPECT_TRUE(secure->tls);
  EXPECT_EQ(secure->port, "443");
}

TEST(WsUrl, TakesBracketedIpv6) {
  std::string error;
  auto url = parse_ws_url("ws://[::1]:9000/ws", error);
  ASSERT_TRUE(url) << error;
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, "9000");
}

TEST(WsUrl, RefusesOtherSchemesAndNoHost) {
  std::string error;
  EXPECT_FALSE(parse_ws_url("http://example.org/ws", error));
  EXPECT_FALSE(parse_ws_url("ws://:8080/ws", error));
  EXPECT_FALSE(parse_ws_url("ws://[::1/ws", error));
}

}  // namespace
}  // namespace parlor::client
