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
  // `slot`: the connection's admission, null when `origin` is a trusted proxy (then each
  // request is admitted on its own).
  HttpSession(Stream&& stream, beast::flat_buffer buffer, std::shared_ptr<ServerState> state,
              ConnectionOrigin origin, std::unique_ptr<IpLimiter::Slot> slot);
  void run();

 private:
  void do_read();
  void on_read(beast::error_code ec, std::size_t bytes);
  void write(std::shared_ptr<beast::http::response<beast::http::string_body>> response);
  void on_write(bool keep_alive, beast::error_code ec, std::size_t bytes);
  void do_close();
  // For a trusted proxy's connection: finds the client of `request` (the last hop of its
  // X-Forwarded-For; the proxy itself when there is none, as for its health checks) and
  // admits it for this request. False when refused, with the answer in `refused`.
  bool admit_forwarded(const beast::http::request<beast::http::string_body>& request,
                       std::shared_ptr<beast::http::response<beast::http::string_body>>& refused);

  Stream stream_;
  beast::flat_buffer buffer_;
  std::shared_ptr<ServerState> state_;
  ConnectionOrigin origin_;
  // Whom this connection's current request is from, for the logs and the WebSocket it may
  // become: the TCP peer, or through a trusted proxy the client it forwarded.
  std::string client_;
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
