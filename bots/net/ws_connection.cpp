#include "bots/net/ws_connection.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <openssl/ssl.h>

namespace parlor::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

std::shared_ptr<asio::ssl::context> make_tls_context(bool verify) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  if (verify) {
    context->set_default_verify_paths();
    context->set_verify_mode(asio::ssl::verify_peer);
  } else {
    context->set_verify_mode(asio::ssl::verify_none);
  }
  return context;
}

WsConnection::WsConnection(asio::io_context& io, WsUrl url, std::shared_ptr<asio::ssl::context> tls,
                           ConnectionHandlers handlers, ConnectionOptions options)
    : url_(std::move(url)),
      tls_(std::move(tls)),
      handlers_(std::move(handlers)),
      options_(options),
      connect_timer_(io) {
  if (url_.tls) {
    secure_ = std::make_unique<TlsWs>(io, *tls_);
  } else {
    plain_ = std::make_unique<PlainWs>(io);
  }
}

WsConnection::Socket& WsConnection::socket() {
  return visit([](auto& ws) -> Socket& { return beast::get_lowest_layer(ws); });
}

void WsConnection::start(const Endpoints& endpoints) {
  // Closing the socket fails the pending connect or TLS handshake. The timer holds the
  // connection weakly, and checks `connecting_` as well because it may have expired just before
  // connected() cancelled it.
  connect_timer_.expires_after(options_.connect_timeout);
  connect_timer_.async_wait([weak = weak_from_this()](beast::error_code ec) {
    auto self = weak.lock();
    if (ec || !self || !self->connecting_) return;
    self->connect_timed_out_ = true;
    beast::error_code ignored;
    self->socket().close(ignored);
  });
  asio::async_connect(
      socket(), endpoints,
      [self = shared_from_this()](beast::error_code ec, const auto&) { self->on_connect(ec); });
}

void WsConnection::on_connect(beast::error_code ec) {
  if (ended_) return;
  if (connect_timed_out_) ec = beast::error::timeout;
  if (ec) return end("connect", ec);
  // Without this, Nagle's algorithm and delayed ACKs add tens of milliseconds per move.
  socket().set_option(asio::ip::tcp::no_delay(true), ec);
  if (!secure_) {
    connected();
    return do_ws_handshake();
  }
  // SNI, and the name the certificate must carry when verification is on.
  SSL_set_tlsext_host_name(secure_->next_layer().native_handle(), url_.host.c_str());
  secure_->next_layer().set_verify_callback(asio::ssl::host_name_verification(url_.host));
  secure_->next_layer().async_handshake(asio::ssl::stream_base::client,
                                        [self = shared_from_this()](beast::error_code e) {
                                          if (self->connect_timed_out_) e = beast::error::timeout;
                                          if (e) return self->end("tls_handshake", e);
                                          self->connected();
                                          self->do_ws_handshake();
                                        });
}

void WsConnection::connected() {
  connecting_ = false;
  connect_timer_.cancel();
}

void WsConnection::do_ws_handshake() {
  visit([this](auto& ws) {
    auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::client);
    if (options_.idle_timeout.count() > 0) {
      timeouts.idle_timeout = options_.idle_timeout;
      timeouts.keep_alive_pings = true;
    }
    ws.set_option(timeouts);
    ws.async_handshake(handshake_response_, url_.host, url_.path,
                       [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
  });
}

void WsConnection::on_handshake(beast::error_code ec) {
  if (ended_) return;
  if (ec) return end("handshake", ec);
  open_ = true;
  visit([](auto& ws) { ws.text(true); });
  if (handlers_.on_open) handlers_.on_open();  // may send or close
  if (!ended_) do_read();
  if (!ended_ && !writing_ && !outbox_.empty()) do_write();
}

void WsConnection::send(std::string text) {
  if (ended_) return;
  outbox_.push_back(std::move(text));
  if (open_ && !writing_) do_write();
}

void WsConnection::do_write() {
  writing_ = true;
  visit([this](auto& ws) {
    ws.async_write(asio::buffer(outbox_.front()),
                   [self = shared_from_this()](beast::error_code ec, std::size_t) {
                     self->writing_ = false;
                     self->outbox_.pop_front();
                     if (ec) return self->end("write", ec);
                     if (!self->outbox_.empty() && !self->ended_) self->do_write();
                   });
  });
}

void WsConnection::do_read() {
  visit([this](auto& ws) {
    ws.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  });
}

void WsConnection::on_read(beast::error_code ec) {
  if (ended_) return;
  if (ec) return end("read", ec);
  const auto* data = static_cast<const char*>(buffer_.data().data());
  if (handlers_.on_message) handlers_.on_message(std::string_view(data, buffer_.size()));
  buffer_.consume(buffer_.size());
  if (!ended_) do_read();
}

void WsConnection::end(const std::string& stage, beast::error_code ec) {
  if (ended_) return;
  ended_ = true;
  open_ = false;
  ConnectionEnd info{stage, ec, 0, {}, 0, {}};
  visit([&](auto& ws) {
    info.close_code = static_cast<int>(ws.reason().code);
    info.close_reason = std::string(ws.reason().reason.c_str());
  });
  if (stage == "handshake" && handshake_response_.result_int() != 0 &&
      handshake_response_.result() != beast::http::status::switching_protocols) {
    info.http_status = static_cast<int>(handshake_response_.result_int());
    info.http_body = handshake_response_.body();
    while (!info.http_body.empty() &&
           (info.http_body.back() == '\n' || info.http_body.back() == '\r'))
      info.http_body.pop_back();
  }
  release();
  // The pending completion handlers hold `self`, so this object outlives the owner dropping
  // its reference inside on_end.
  if (handlers_.on_end) handlers_.on_end(info);
}

void WsConnection::close() {
  if (ended_) return;
  ended_ = true;  // the handlers are never called again
  open_ = false;
  release();
}

void WsConnection::release() {
  // Turning the timeouts off cancels the stream's idle-ping timer, which would otherwise keep
  // the io_context busy for up to idle_timeout after the socket is gone.
  visit([](auto& ws) {
    ws.set_option(websocket::stream_base::timeout{websocket::stream_base::none(),
                                                  websocket::stream_base::none(), false});
  });
  connect_timer_.cancel();
  beast::error_code ignored;
  socket().close(ignored);
}

std::string refusal_hint(const ConnectionEnd& end) {
  const auto said = [&](std::string_view words) {
    return end.http_body.find(words) != std::string::npos;
  };
  switch (end.http_status) {
    case 0:
    case 101:
      return {};
    case 429:
      if (said("new connections"))
        return "server refused: too many new connections a second from this address (429); "
               "raise --max-handshakes-per-ip or open connections more slowly";
      return "server refused: too many connections from this address (429); raise "
             "--max-connections-per-ip or spread the load";
    case 503:
      return "server refused: it is shutting down (503); start it again or try later";
    case 431:
      return "server refused: request headers too large (431); raise --max-http-header-bytes";
    case 403:
      return "server refused: origin not allowed (403); check --allowed-origins";
    default:
      return "server refused the WebSocket upgrade with HTTP " + std::to_string(end.http_status) +
             (end.http_body.empty() ? "" : ": " + end.http_body);
  }
}

}  // namespace parlor::client
