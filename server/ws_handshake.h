// The server's answer to a WebSocket opening handshake (RFC 6455 4.2.2), for the plain
// sockets whose WebSocket layer is Parlor's own (plain_ws_stream.h). The HTTP session has
// already checked the path, the origin, the key's form and that the request is an upgrade.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <string>
#include <string_view>

namespace parlor::server {

// Sec-WebSocket-Accept for a client's Sec-WebSocket-Key: base64(SHA-1(key + RFC 6455's GUID)).
std::string websocket_accept_value(std::string_view key);

struct UpgradeAnswer {
  bool accepted = false;
  std::string bytes;  // the whole HTTP response: 101, or the refusal with its reason
};

// 101 Switching Protocols with no extension and no subprotocol agreed; 400 without a Host, a
// key or a version; 426 naming version 13 for another version.
UpgradeAnswer answer_upgrade(
    const boost::beast::http::request<boost::beast::http::string_body>& request);

}  // namespace parlor::server
