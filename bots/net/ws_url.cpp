#include "bots/net/ws_url.h"

namespace parlor::client {

std::optional<WsUrl> parse_ws_url(std::string_view url, std::string& error) {
  WsUrl result;
  std::string_view rest;
  if (url.starts_with("ws://")) {
    rest = url.substr(5);
  } else if (url.starts_with("wss://")) {
    result.tls = true;
    rest = url.substr(6);
  } else {
    error = "the URL must start with ws:// or wss://";
    return std::nullopt;
  }
  const auto slash = rest.find('/');
  result.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  std::string_view authority = rest.substr(0, slash);
  std::string_view port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "unclosed [ in the URL's host";
      return std::nullopt;
    }
    result.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (after.starts_with(':')) port = after.substr(1);
  } else {
    const auto colon = authority.rfind(':');
    result.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (result.host.empty()) {
    error = "the URL has no host";
    return std::nullopt;
  }
  result.port = port.empty() ? (result.tls ? "443" : "80") : std::string(port);
  return result;
}

}  // namespace parlor::client
