// One HTTP connection (plain or TLS): serves the web client's static files, the
// health/readiness/metrics endpoints and the read-only REST API, and hands a
// WebSocket upgrade at /ws over to a WsSession on the same stream.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <memory>
#include <optional>

#include "server/ip_limiter.h"
#include "server/net.h"
#include "server/server_state.h"

namespace parlor::server {

template <class Stream>
class HttpSession final : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(Stream&& stream, beast::flat_buffer buffer, std::shared_ptr<ServerState> state,
              std::unique_ptr<IpLimiter::Slot> slot);
  void run();

 private:
  void do_read();
  void on_read(beast::error_code ec, std::size_t bytes);
  void write(std::shared_ptr<beast::http::response<beast::http::string_body>> response);
  void on_write(bool keep_alive, beast::error_code ec, std::size_t bytes);
  void do_close();

  Stream stream_;
  beast::flat_buffer buffer_;
  std::shared_ptr<ServerState> state_;
  std::unique_ptr<IpLimiter::Slot> slot_;
  std::optional<beast::http::request_parser<beast::http::string_body>> parser_;
};

extern template class HttpSession<PlainStream>;
extern template class HttpSession<TlsStream>;

// GET /api/games/<room>/replay?as=<seat>&game=<n>
struct ReplayRequest {
  std::string room;
  std::optional<int> as;
  std::optional<int> game;
  bool malformed = false;
};
std::optional<ReplayRequest> replay_request(std::string_view target);
beast::http::response<beast::http::string_body> replay_response(
    ServerState& state, const beast::http::request<beast::http::string_body>& request,
    const ReplayRequest& replay);

// Builds the response for a plain HTTP request (everything but the WebSocket upgrade).
beast::http::response<beast::http::string_body> handle_http(
    ServerState& state, const beast::http::request<beast::http::string_body>& request);

}  // namespace parlor::server
