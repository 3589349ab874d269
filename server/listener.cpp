#include "server/listener.h"

#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/detect_ssl.hpp>

#include "server/http_session.h"
#include "server/log.h"

namespace parlor::server {

namespace {

// Looks at the first bytes of a connection: a TLS ClientHello gets a TLS handshake, anything
// else is plain HTTP (so one port serves both when TLS is configured).
class DetectSession : public std::enable_shared_from_this<DetectSession> {
 public:
  DetectSession(tcp::socket&& socket, std::shared_ptr<ServerState> state,
                std::shared_ptr<net::ssl::context> tls, std::unique_ptr<IpLimiter::Slot> slot)
      : stream_(std::move(socket)),
        state_(std::move(state)),
        tls_(std::move(tls)),
        slot_(std::move(slot)) {}

  void run() {
    if (!tls_) {
      std::make_shared<HttpSession<PlainStream>>(std::move(stream_), std::move(buffer_), state_,
                                                 std::move(slot_))
          ->run();
      return;
    }
    stream_.expires_after(state_->config().handshake_timeout);
    beast::async_detect_ssl(
        stream_, buffer_, beast::bind_front_handler(&DetectSession::on_detect, shared_from_this()));
  }

 private:
  void on_detect(beast::error_code ec, bool is_tls) {
    if (ec) return;
    if (!is_tls) {
      std::make_shared<HttpSession<PlainStream>>(std::move(stream_), std::move(buffer_), state_,
                                                 std::move(slot_))
          ->run();
      return;
    }
    tls_stream_.emplace(std::move(stream_), *tls_);
    beast::get_lowest_layer(*tls_stream_).expires_after(state_->config().handshake_timeout);
    tls_stream_->async_handshake(
        net::ssl::stream_base::server, buffer_.data(),
        beast::bind_front_handler(&DetectSession::on_handshake, shared_from_this()));
  }

  void on_handshake(beast::error_code ec, std::size_t used) {
    if (ec) return;
    buffer_.consume(used);
    std::make_shared<HttpSession<TlsStream>>(std::move(*tls_stream_), std::move(buffer_), state_,
                                             std::move(slot_))
        ->run();
  }

  PlainStream stream_;
  std::optional<TlsStream> tls_stream_;
  beast::flat_buffer buffer_;
  std::shared_ptr<ServerState> state_;
  std::shared_ptr<net::ssl::context> tls_;
  std::unique_ptr<IpLimiter::Slot> slot_;
};

}  // namespace

Listener::Listener(net::io_context& io, const tcp::endpoint& endpoint,
                   std::shared_ptr<ServerState> state, std::shared_ptr<net::ssl::context> tls)
    : io_(io),
      acceptor_(net::make_strand(io)),
      state_(std::move(state)),
      tls_(std::move(tls)),
      limiter_(std::make_shared<IpLimiter>(state_->config().max_connections_per_ip,
                                           state_->config().max_handshakes_per_ip_per_second)),
      backoff_timer_(acceptor_.get_executor()) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

void Listener::run() {
  net::dispatch(acceptor_.get_executor(),
                beast::bind_front_handler(&Listener::do_accept, shared_from_this()));
}

void Listener::stop() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    beast::error_code ec;
    self->acceptor_.close(ec);
    self->backoff_timer_.cancel();
  });
}

void Listener::do_accept() {
  // Each connection gets its own strand.
  acceptor_.async_accept(net::make_strand(io_),
                         beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
}

void Listener::on_accept(beast::error_code ec, tcp::socket socket) {
  if (!acceptor_.is_open()) return;
  if (ec) {
    state_->metrics().accept_errors.fetch_add(1);
    backoff_ = std::min(std::max(backoff_ * 2, std::chrono::milliseconds(10)),
                        std::chrono::milliseconds(1000));
    log_error("accept failed: " + ec.message() + "; retrying in " +
              std::to_string(backoff_.count()) + " ms");
    backoff_timer_.expires_after(backoff_);
    backoff_timer_.async_wait([self = shared_from_this()](beast::error_code timer_ec) {
      if (!timer_ec) self->do_accept();
    });
    return;
  }
  backoff_ = std::chrono::milliseconds(0);
  beast::error_code endpoint_ec;
  const auto remote = socket.remote_endpoint(endpoint_ec);
  auto slot = endpoint_ec ? nullptr : limiter_->admit(remote.address().to_string());
  if (!slot) {
    state_->metrics().connections_refused.fetch_add(1);
    beast::error_code ignored;
    socket.close(ignored);
  } else if (state_->shutting_down()) {
    beast::error_code ignored;
    socket.close(ignored);
  } else {
    socket.set_option(tcp::no_delay(true), endpoint_ec);
    std::make_shared<DetectSession>(std::move(socket), state_, tls_, std::move(slot))->run();
  }
  do_accept();
}

}  // namespace parlor::server
