#include "server/http_session.h"

#include <unistd.h>

#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include "games/registry.h"
#include "protocol/encode.h"
#include "protocol/replay.h"
#include "server/admin_api.h"
#include "server/linger.h"
#include "server/log_throttle.h"
#include "server/ratings_api.h"
#include "server/static_files.h"
#include "server/trusted_proxy.h"
#include "server/ws_session.h"

namespace parlor::server {

namespace http = beast::http;

namespace {

// The plain socket of an upgraded connection, moved onto a socket typed with its strand (see
// PlainWsSocket). Null when the descriptor cannot be taken over (the peer is gone).
std::optional<PlainWsSocket> to_ws_socket(PlainStream&& stream) {
  tcp::socket socket = stream.release_socket();
  const auto* strand = socket.get_executor().target<ConnectionExecutor>();
  beast::error_code ec;
  const auto endpoint = socket.local_endpoint(ec);
  if (!strand || ec) return std::nullopt;
  const ConnectionExecutor executor = *strand;
  const auto handle = socket.release(ec);
  if (ec) return std::nullopt;
  PlainWsSocket out(executor);
  out.assign(endpoint.protocol(), handle, ec);
  if (ec) {
    ::close(handle);
    return std::nullopt;
  }
  return out;
}

http::response<http::string_body> make_response(const http::request<http::string_body>& request,
                                                http::status status, std::string body,
                                                std::string_view content_type) {
  http::response<http::string_body> response{status, request.version()};
  response.set(http::field::server, "parlor");
  response.set(http::field::content_type, content_type);
  response.set("X-Content-Type-Options", "nosniff");
  response.keep_alive(request.keep_alive());
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

// The query parameter `name` of a target, if present.
std::optional<std::string> query_param(std::string_view target, std::string_view name) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      return std::string(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return std::nullopt;
}

bool origin_allowed(const ServerConfig& config, const http::request<http::string_body>& request) {
  if (config.allowed_origins.empty()) return true;
  auto origin = request.find(http::field::origin);
  if (origin == request.end()) return true;  // not a browser: Origin is a browser's promise
  return std::find(config.allowed_origins.begin(), config.allowed_origins.end(),
                   std::string(origin->value())) != config.allowed_origins.end();
}

// RFC 6455 4.2.1: the key is a base64-encoded 16-byte value: 22 base64 digits and "==".
// Beast checks only that a key is present and not longer than that.
bool valid_websocket_key(std::string_view key) {
  if (key.size() != 24 || !key.ends_with("==")) return false;
  return std::all_of(key.begin(), key.begin() + 22, [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
  });
}

}  // namespace

std::optional<ReplayRequest> replay_request(std::string_view target) {
  constexpr std::string_view prefix = "/api/games/";
  constexpr std::string_view suffix = "/replay";
  const std::string_view path = target.substr(0, target.find('?'));
  if (!path.starts_with(prefix) || !path.ends_with(suffix)) return std::nullopt;
  const std::string_view room =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (room.empty() || room.find('/') != std::string_view::npos || room.size() > 64) {
    return std::nullopt;
  }
  ReplayRequest out{std::string(room), std::nullopt, std::nullopt, false};
  auto number = [&](std::string_view key, std::optional<int>& field) {
    if (auto v = query_param(target, key)) {
      const std::string_view text = *v;
      int n = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc() || ptr != text.data() + text.size() || n < 0) out.malformed = true;
      field = n;
    }
  };
  number("as", out.as);
  number("game", out.game);
  return out;
}

http::response<http::string_body> replay_response(ServerState& state,
                                                  const http::request<http::string_body>& request,
                                                  const ReplayRequest& replay) {
  auto reply = [&](http::status status, std::string body) {
    return make_response(request, status, std::move(body), "application/json");
  };
  // Over plain HTTP nobody is signed in: only finished games, whose every seat is public.
  ReplayOutcome outcome =
      replay.malformed ? ReplayOutcome{ReplayRefusal{protocol::ErrorCode::kBadRequest,
                                                     "as and game must be non-negative integers"}}
                       : state.replay(replay.room, replay.as, replay.game, nullptr);
  if (auto* found = std::get_if<protocol::Replay>(&outcome); found && !found->finished) {
    outcome = ReplayRefusal{protocol::ErrorCode::kNotAllowed,
                            "the game is still on: replays over HTTP are for finished games"};
  }
  if (auto* refusal = std::get_if<ReplayRefusal>(&outcome)) {
    const int status = protocol::http_status(refusal->code);
    return reply(static_cast<http::status>(status),
                 api_refusal(status, protocol::wire_name(refusal->code), refusal->message).body);
  }
  return reply(http::status::ok,
               protocol::encode_replay(nullptr, std::get<protocol::Replay>(outcome)));
}

http::response<http::string_body> handle_http(ServerState& state,
                                              const http::request<http::string_body>& request) {
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  if (request.method() != http::verb::get && request.method() != http::verb::head) {
    auto response = make_response(request, http::status::method_not_allowed, "only GET and HEAD\n",
                                  "text/plain; charset=utf-8");
    response.set(http::field::allow, "GET, HEAD");
    return response;
  }
  auto respond = [&](http::status status, std::string body, std::string_view type) {
    auto response = make_response(request, status, std::move(body), type);
    if (request.method() == http::verb::head) {
      response.body().clear();  // Content-Length stays that of the GET body
    }
    return response;
  };
  if (path == "/healthz") return respond(http::status::ok, "ok\n", "text/plain; charset=utf-8");
  if (path == "/readyz") {
    return state.shutting_down()
               ? respond(http::status::service_unavailable, "shutting down\n",
                         "text/plain; charset=utf-8")
               : respond(http::status::ok, "ready\n", "text/plain; charset=utf-8");
  }
  if (path == "/metrics") {
    std::optional<StoreStats> store;
    if (state.store()) store = state.store()->stats();
    return respond(
        http::status::ok,
        state.metrics().prometheus_text(state.lobby().rooms_by_status(), store ? &*store : nullptr),
        "text/plain; version=0.0.4; charset=utf-8");
  }
  if (path == "/api/games") {
    return respond(http::status::ok, protocol::encode_games(nullptr, game_registry()),
                   "application/json");
  }
  if (path == "/api/rooms") {
    // Cluster mode answers from the blocking pool (other nodes' rooms are read from Redis).
    return respond(http::status::ok, protocol::encode_rooms(nullptr, state.lobby().list_rooms()),
                   "application/json");
  }
  if (path == "/ws") {
    return respond(http::status::upgrade_required, "WebSocket endpoint: upgrade required\n",
                   "text/plain; charset=utf-8");
  }
  auto file = resolve_static_path(state.config().static_dir, target);
  if (!file) return respond(http::status::bad_request, "bad path\n", "text/plain; charset=utf-8");
  std::ifstream in(*file, std::ios::binary);
  if (!in) {
    return respond(http::status::not_found, "not found\n", "text/plain; charset=utf-8");
  }
  std::ostringstream body;
  body << in.rdbuf();
  auto response = respond(http::status::ok, body.str(), mime_type(*file));
  if (file->ends_with("index.html")) {
    response.set(http::field::cache_control, "no-cache");
  }
  return response;
}

template <class Stream>
HttpSession<Stream>::HttpSession(Stream&& stream, beast::flat_buffer buffer,
                                 std::shared_ptr<ServerState> state, ConnectionOrigin origin,
                                 std::unique_ptr<IpLimiter::Slot> slot)
    : stream_(std::move(stream)),
      buffer_(std::move(buffer)),
      state_(std::move(state)),
      origin_(std::move(origin)),
      client_(origin_.address),
      slot_(std::move(slot)) {}

template <class Stream>
void HttpSession<Stream>::run() {
  do_read();
}

template <class Stream>
void HttpSession<Stream>::do_read() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(state_->config().max_http_header_bytes));
  parser_->body_limit(state_->config().max_message_bytes);
  // Slowloris: the whole request must arrive within the handshake timeout.
  beast::get_lowest_layer(stream_).expires_after(state_->config().handshake_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&HttpSession::on_read, this->shared_from_this()));
}

template <class Stream>
void HttpSession<Stream>::on_read(beast::error_code ec, std::size_t) {
  if (ec == http::error::end_of_stream) return do_close();
  if (ec == http::error::header_limit) {
    // Told rather than dropped: the client learns which limit it met.
    static LogThrottle log;
    state_->metrics().count_refusal("header_too_large");
    log.info("refused a request from " + origin_.address + ": headers larger than " +
             std::to_string(state_->config().max_http_header_bytes) + " bytes (431)");
    auto response = std::make_shared<http::response<http::string_body>>(
        http::status::request_header_fields_too_large, 11);
    response->set(http::field::server, "parlor");
    response->set(http::field::content_type, "text/plain; charset=utf-8");
    response->body() = "request headers larger than " +
                       std::to_string(state_->config().max_http_header_bytes) + " bytes\n";
    response->keep_alive(false);
    response->prepare_payload();
    return write(response);
  }
  if (ec) return;  // timeout, reset: drop the connection
  auto request = parser_->release();
  std::shared_ptr<http::response<http::string_body>> response;
  if (origin_.per_request_limiter && !admit_forwarded(request, response)) {
    // Refused; the answer is in `response`.
  } else if (beast::websocket::is_upgrade(request)) {
    const std::string target(request.target());
    const std::string path = target.substr(0, target.find('?'));
    if (path == kLinkPath) {
      // Another node of the cluster: it presents the cluster's secret, and only a plain
      // listener serves links (nodes reach each other on the private network).
      auto* links = state_->links();
      if constexpr (std::is_same_v<Stream, PlainStream>) {
        if (links && links->secret_matches(request[kLinkSecretHeader])) {
          links->accept(stream_.release_socket(), std::move(request));
          return;
        }
      }
      response = std::make_shared<http::response<http::string_body>>(
          make_response(request, http::status::forbidden, "not a node of this cluster\n",
                        "text/plain; charset=utf-8"));
      response->keep_alive(false);
    } else if (path != "/ws") {
      response = std::make_shared<http::response<http::string_body>>(make_response(
          request, http::status::not_found, "no WebSocket here\n", "text/plain; charset=utf-8"));
      response->keep_alive(false);
    } else if (!valid_websocket_key(request[http::field::sec_websocket_key])) {
      response = std::make_shared<http::response<http::string_body>>(
          make_response(request, http::status::bad_request,
                        "Sec-WebSocket-Key must be the base64 encoding of 16 bytes\n",
                        "text/plain; charset=utf-8"));
      response->keep_alive(false);
    } else if (!origin_allowed(state_->config(), request)) {
      response = std::make_shared<http::response<http::string_body>>(make_response(
          request, http::status::forbidden, "origin not allowed\n", "text/plain; charset=utf-8"));
      response->keep_alive(false);
    } else {
      if constexpr (std::is_same_v<Stream, PlainStream>) {
        auto socket = to_ws_socket(std::move(stream_));
        if (!socket) return;  // the connection is already gone
        std::make_shared<WsSession<PlainWsSocket>>(std::move(*socket), state_, client_,
                                                   std::move(slot_))
            ->run(std::move(request));
      } else {
        std::make_shared<WsSession<Stream>>(std::move(stream_), state_, client_, std::move(slot_))
            ->run(std::move(request));
      }
      return;
    }
  } else if (const std::string_view admin_target(request.target().data(), request.target().size());
             !state_->config().admin_token.empty() &&
             is_admin_path(admin_target.substr(0, admin_target.find('?')))) {
    // Nothing here blocks (closing a room or a connection posts to its strand): answered now.
    const std::string_view method(request.method_string().data(), request.method_string().size());
    const auto authorization = request[http::field::authorization];
    const ApiAnswer answer = admin_api(
        *state_,
        AdminRequest{method, admin_target.substr(0, admin_target.find('?')),
                     std::string_view(authorization.data(), authorization.size()), client_});
    response = std::make_shared<http::response<http::string_body>>(make_response(
        request, static_cast<http::status>(answer.status), answer.body, "application/json"));
    if (answer.status == 401) response->set(http::field::www_authenticate, "Bearer");
  } else if (request.target() == "/api/rooms" && state_->cluster()) {
    state_->run_blocking([self = this->shared_from_this(), request = std::move(request)] {
      auto answer = std::make_shared<http::response<http::string_body>>(
          make_response(request, http::status::ok, protocol::to_wire(self->state_->cluster_rooms()),
                        "application/json"));
      if (request.method() == http::verb::head) answer->body().clear();
      net::post(self->stream_.get_executor(), [self, answer] { self->write(answer); });
    });
    return;
  } else if (const std::string_view target(request.target().data(), request.target().size());
             request.method() == http::verb::get &&
             is_ratings_path(target.substr(0, target.find('?')))) {
    // /api/leaderboard and /api/players/<id> read the store off the event loop.
    state_->run_blocking([self = this->shared_from_this(), request = std::move(request)] {
      const std::string_view wanted(request.target().data(), request.target().size());
      const ApiAnswer answer = ratings_api(self->state_->store(), wanted);
      auto reply = std::make_shared<http::response<http::string_body>>(make_response(
          request, static_cast<http::status>(answer.status), answer.body, "application/json"));
      net::post(self->stream_.get_executor(), [self, reply] { self->write(reply); });
    });
    return;
  } else if (auto replay = replay_request(request.target());
             replay && request.method() == http::verb::get) {
    // The store read runs off the event loop; the answer is written back on this strand.
    state_->run_blocking([self = this->shared_from_this(), request = std::move(request),
                          replay = *replay]() mutable {
      auto answer = std::make_shared<http::response<http::string_body>>(
          replay_response(*self->state_, request, replay));
      net::post(self->stream_.get_executor(), [self, answer] { self->write(answer); });
    });
    return;
  } else {
    response = std::make_shared<http::response<http::string_body>>(handle_http(*state_, request));
  }
  write(response);
}

template <class Stream>
bool HttpSession<Stream>::admit_forwarded(
    const http::request<http::string_body>& request,
    std::shared_ptr<http::response<http::string_body>>& refused) {
  static LogThrottle log;
  auto refuse = [&](http::status status, int retry_after_s, const std::string& reason,
                    const char* metric) {
    state_->metrics().count_refusal(metric);
    log.info("refused a request from " + client_ + " via " + origin_.address + ": " + reason +
             " (" + std::to_string(static_cast<int>(status)) + ")");
    refused = std::make_shared<http::response<http::string_body>>(
        make_response(request, status, reason + "\n", "text/plain; charset=utf-8"));
    if (retry_after_s > 0) refused->set(http::field::retry_after, std::to_string(retry_after_s));
    if (request.method() == http::verb::head) refused->body().clear();
    // The proxy may carry other clients' requests on this connection: it stays open.
    return false;
  };
  // Several X-Forwarded-For fields are one list, in order (RFC 9110 5.3).
  std::string forwarded;
  const auto [first, last] = request.equal_range("X-Forwarded-For");
  for (auto field = first; field != last; ++field) {
    if (!forwarded.empty()) forwarded += ", ";
    forwarded += field->value();
  }
  client_ = origin_.address;
  if (!forwarded.empty()) {
    const auto client = last_forwarded_hop(forwarded);
    if (!client) {
      return refuse(http::status::bad_request, 0,
                    "the trusted proxy's X-Forwarded-For does not end with a client address",
                    "bad_forwarded_for");
    }
    client_ = client->to_string();
  }
  IpLimiter::Refusal why = IpLimiter::Refusal::kNone;
  slot_ = origin_.per_request_limiter->admit(client_, &why);
  if (!slot_) {
    const IpLimiter::RefusalText text = origin_.per_request_limiter->explain(why);
    return refuse(http::status::too_many_requests, text.retry_after_s, text.reason, text.metric);
  }
  return true;
}

template <class Stream>
void HttpSession<Stream>::write(std::shared_ptr<http::response<http::string_body>> response) {
  // A trusted proxy's request held its client's place until answered: it is let go as the
  // answer goes out, not once the write completes, so that a client that has its answer and
  // connects again at once finds its place free (the write's completion can run after the
  // bytes have reached it). The next request on the connection may be another client's.
  if (origin_.per_request_limiter) slot_.reset();
  const bool keep_alive = response->keep_alive();
  auto& message = *response;  // kept alive by the handler, which owns the response
  http::async_write(stream_, message,
                    [self = this->shared_from_this(), response = std::move(response), keep_alive](
                        beast::error_code write_ec, std::size_t bytes) {
                      self->on_write(keep_alive, write_ec, bytes);
                    });
}

template <class Stream>
void HttpSession<Stream>::on_write(bool keep_alive, beast::error_code ec, std::size_t) {
  if (ec) return;
  if (!keep_alive) return do_close();
  do_read();
}

template <class Stream>
void HttpSession<Stream>::do_close() {
  if constexpr (std::is_same_v<Stream, PlainStream>) {
    // The client may still be sending (the rest of headers that were too large): linger, so
    // the response is not lost to a reset.
    linger_and_close(stream_.socket(), kLingerTime, [self = this->shared_from_this()](auto) {});
  } else {
    // A TLS close_notify would need an async shutdown; the peer is done, close the socket.
    beast::get_lowest_layer(stream_).close();
  }
}

template class HttpSession<PlainStream>;
template class HttpSession<TlsStream>;

}  // namespace parlor::server
