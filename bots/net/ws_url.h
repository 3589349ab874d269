// ws:// and wss:// URLs, as the command-line tools take them (--url ws://HOST:PORT/PATH).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace parlor::client {

struct WsUrl {
  bool tls = false;  // wss://
  std::string host;
  std::string port;  // 80 or 443 when the URL names none
  std::string path;  // "/" when the URL names none
};

// The parts of `url`, or nullopt with a message in `error`. IPv6 literals go in brackets
// (ws://[::1]:8080/ws); the brackets are removed from `host`.
std::optional<WsUrl> parse_ws_url(std::string_view url, std::string& error);

}  // namespace parlor::client
