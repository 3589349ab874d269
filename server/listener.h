// Accepts TCP connections, applies per-IP admission (for a trusted proxy's connections it
// is left to each request: see on_accept), detects TLS, and starts an HttpSession for each. Unlike
// Beast's example, an accept error (e.g. EMFILE: out of file descriptors) backs off and keeps
// accepting instead of stopping forever.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <memory>

#include "server/ip_limiter.h"
#include "server/net.h"
#include "server/server_state.h"
#include "server/trusted_proxy.h"

namespace parlor::server {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds and listens; throws boost::system::system_error when the endpoint is unusable.
  Listener(net::io_context& io, const tcp::endpoint& endpoint, std::shared_ptr<ServerState> state,
           std::shared_ptr<net::ssl::context> tls);

  tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
  void run();
  void stop();

 private:
  void do_accept();
  void on_accept(beast::error_code ec, tcp::socket socket);

  net::io_context& io_;
  tcp::acceptor acceptor_;
  std::shared_ptr<ServerState> state_;
  std::shared_ptr<net::ssl::context> tls_;
  std::shared_ptr<IpLimiter> limiter_;
  TrustedProxies trusted_proxies_;
  net::steady_timer backoff_timer_;
  std::chrono::milliseconds backoff_{0};
  std::uint64_t failed_accepts_ = 0;  // since the last accept that succeeded
};

}  // namespace parlor::server
