#include "server/listener.h"

#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/detect_ssl.hpp>

#include <array>
#include <atomic>
#include <optional>
#include <string>

#include "server/http_session.h"
#include "server/linger.h"
#include "server/log.h"
#include "server/log_throttle.h"
#include "server/trusted_proxy.h"

namespace parlor::server {

namespace {

// Looks at the first bytes of a connection: a TLS ClientHello gets a TLS handshake, anything
// else is plain HTTP (so one port serves both when TLS is configured).
class DetectSession : public std::enable_shared_from_this<DetectSession> {
 public:
  DetectSession(tcp::socket&& socket, std::shared_ptr<ServerState> state,
                std::shared_ptr<net::ssl::context> tls, ConnectionOrigin origin,
                std::unique_ptr<IpLimiter::Slot> slot)
      : stream_(std::move(socket)),
        state_(std::move(state)),
        tls_(std::move(tls)),
        origin_(std::move(origin)),
        slot_(std::move(slot)) {}

  void run() {
    if (!tls_) {
      std::make_shared<HttpSession<PlainStream>>(std::move(stream_), std::move(buffer_), state_,
                                                 std::move(origin_), std::move(slot_))
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
                                                 std::move(origin_), std::move(slot_))
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
                                             std::move(origin_), std::move(slot_))
        ->run();
  }

  PlainStream stream_;
  std::optional<TlsStream> tls_stream_;
  beast::flat_buffer buffer_;
  std::shared_ptr<ServerState> state_;
  std::shared_ptr<net::ssl::context> tls_;
  ConnectionOrigin origin_;
  std::unique_ptr<IpLimiter::Slot> slot_;
};

// What a refused client is told: an HTTP status it can act on, when to try again, and why.
struct RefusalAnswer {
  const char* status_line;  // "429 Too Many Requests"
  int retry_after_s;
  std::string reason;  // one line, for the client and the log
  const char* metric;  // the reason label of parlor_connections_refused_by_reason_total
};

// Refusals being answered right now. Each holds a socket for up to kRefusalLinger; past this
// many, further refused connections are answered and closed at once (answer_at_once), so a
// flood of refused connections cannot hold more sockets than this.
constexpr int kMaxRefusalsInFlight = 256;
std::atomic<int> refusals_in_flight{0};
constexpr std::chrono::milliseconds kRefusalLinger{500};

// The answer to a refused connection over the limit of those in flight: written at once and
// closed at once, holding no descriptor past this call. The answer is a few hundred bytes, so a
// non-blocking write to a fresh socket takes it whole. What the client has sent so far is read
// and dropped first, so the close is a FIN after the answer; only a request that arrives later
// still turns it into a reset (and Linux delivers the answer before the reset even then). A
// refusal closed unanswered would leave the client nothing to act on: in a burst of thousands
// it would look like a server that drops connections.
void answer_at_once(tcp::socket& socket, const std::string& response) {
  beast::error_code ec;
  socket.non_blocking(true, ec);
  if (!ec) socket.write_some(net::buffer(response), ec);
  if (!ec) socket.shutdown(tcp::socket::shutdown_send, ec);
  std::array<char, 4096> discard{};
  while (!ec && socket.available(ec) > 0) socket.read_some(net::buffer(discard), ec);
  beast::error_code ignored;
  socket.close(ignored);
}

// Writes `answer` as a complete HTTP response on a fresh connection (before its request is
// read: an HTTP server may answer early) and closes it after a short linger, so the unread
// request does not turn the close into a reset that could swallow the answer.
void answer_refusal(tcp::socket socket, const RefusalAnswer& answer) {
  const std::string body = answer.reason + "\n";
  std::string response =
      std::string("HTTP/1.1 ") + answer.status_line +
      "\r\nServer: parlor\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: " +
      std::to_string(answer.retry_after_s) +
      "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  if (refusals_in_flight.fetch_add(1) >= kMaxRefusalsInFlight) {
    refusals_in_flight.fetch_sub(1);
    answer_at_once(socket, response);
    return;
  }
  // Holds the socket and the answer while they are written and the connection lingers; its
  // end (however it comes, even with the io_context stopped) frees the place in flight.
  struct Refused {
    Refused(tcp::socket s, std::string r) : socket(std::move(s)), response(std::move(r)) {}
    Refused(const Refused&) = delete;
    Refused& operator=(const Refused&) = delete;
    ~Refused() { refusals_in_flight.fetch_sub(1); }
    tcp::socket socket;
    std::string response;
  };
  auto refused = std::make_shared<Refused>(std::move(socket), std::move(response));
  net::async_write(refused->socket, net::buffer(refused->response),
                   [refused](beast::error_code ec, std::size_t) {
                     if (ec) {
                       beast::error_code ignored;
                       refused->socket.close(ignored);
                       return;
                     }
                     linger_and_close(refused->socket, kRefusalLinger,
                                      [refused](beast::error_code) {});
                   });
}

LogThrottle refusal_log;
// Out of descriptors, every accept fails until one is freed, and connections come and go
// meanwhile: a line a second at most says so, however many accepts failed.
LogThrottle accept_failure_log;
LogThrottle accept_again_log;

}  // namespace

Listener::Listener(net::io_context& io, const tcp::endpoint& endpoint,
                   std::shared_ptr<ServerState> state, std::shared_ptr<net::ssl::context> tls)
    : io_(io),
      acceptor_(net::make_strand(io)),
      state_(std::move(state)),
      tls_(std::move(tls)),
      limiter_(std::make_shared<IpLimiter>(state_->config().max_connections_per_ip,
                                           state_->config().max_handshakes_per_ip_per_second)),
      trusted_proxies_(state_->config().trusted_proxies),
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
    ++failed_accepts_;
    // The listener stays readable while connections wait in its backlog: retrying at once
    // would spin. Waiting up to a second costs a waiting client no more than that once
    // descriptors are free again.
    backoff_ = std::min(std::max(backoff_ * 2, std::chrono::milliseconds(10)),
                        std::chrono::milliseconds(1000));
    accept_failure_log.error("accept failed: " + ec.message() + "; retrying in " +
                             std::to_string(backoff_.count()) +
                             " ms (new connections wait in the listen backlog)");
    backoff_timer_.expires_after(backoff_);
    backoff_timer_.async_wait([self = shared_from_this()](beast::error_code timer_ec) {
      if (!timer_ec) self->do_accept();
    });
    return;
  }
  backoff_ = std::chrono::milliseconds(0);
  if (failed_accepts_ > 0) {
    accept_again_log.info("accepting connections again after " + std::to_string(failed_accepts_) +
                          " failed accepts");
    failed_accepts_ = 0;
  }
  beast::error_code endpoint_ec;
  const auto remote = socket.remote_endpoint(endpoint_ec);
  if (endpoint_ec) {
    beast::error_code ignored;  // the peer is already gone
    socket.close(ignored);
    return do_accept();
  }
  const std::string address = canonical_address(remote.address()).to_string();
  ConnectionOrigin origin{address, nullptr};
  std::unique_ptr<IpLimiter::Slot> slot;
  std::optional<RefusalAnswer> refusal;
  if (trusted_proxies_.trusts(remote.address())) {
    // A trusted proxy carries many clients on its connections, and reuses them from one
    // client to the next: its address is no client's, and limiting it here would limit
    // everyone behind it together. Who the client is comes with each request
    // (X-Forwarded-For), so HttpSession admits each request against the same limiter once it
    // has read its header.
    origin.per_request_limiter = limiter_;
  } else {
    IpLimiter::Refusal why = IpLimiter::Refusal::kNone;
    slot = limiter_->admit(address, &why);
    if (!slot) {
      IpLimiter::RefusalText text = limiter_->explain(why);
      refusal = RefusalAnswer{"429 Too Many Requests", text.retry_after_s, std::move(text.reason),
                              text.metric};
    }
  }
  if (!refusal && state_->shutting_down()) {
    refusal = RefusalAnswer{"503 Service Unavailable", 1, "server shutting down", "shutting_down"};
  }
  if (refusal) {
    state_->metrics().count_refusal(refusal->metric);
    refusal_log.info("refused a connection from " + address + ": " + refusal->reason + " (" +
                     std::string(refusal->status_line, 3) + ")");
    if (tls_) {
      // The answer would need the TLS handshake the refusal is there to save.
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      answer_refusal(std::move(socket), *refusal);
    }
  } else {
    socket.set_option(tcp::no_delay(true), endpoint_ec);
    std::make_shared<DetectSession>(std::move(socket), state_, tls_, std::move(origin),
                                    std::move(slot))
        ->run();
  }
  do_accept();
}

}  // namespace parlor::server
