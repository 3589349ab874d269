// Closing a TCP connection the peer may still be writing to, without losing what was sent.
//
// Why: closing a socket with unread bytes in its receive buffer makes the kernel answer with
// a reset instead of a FIN, and a reset can make the peer discard what it has not read yet:
// the close frame that says why a WebSocket was failed, or the 429 that says why a
// connection was refused. So the server stops sending (FIN), reads and discards what still
// arrives until the peer closes too or a short time passes, and only then closes.
#pragma once

#include <boost/asio/post.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <type_traits>
#include <utility>

namespace parlor::server {

// How long a closing connection is read and discarded at most before it is closed anyway.
inline constexpr std::chrono::milliseconds kLingerTime{1000};

// Shuts down sending on `socket`, discards what the peer still sends until it closes or
// `linger` has passed, closes the socket, then calls `handler(error_code)` with no error.
// `socket` must outlive the operation; everything runs on the socket's executor.
template <class Socket, class Handler>
void linger_and_close(Socket& socket, std::chrono::milliseconds linger, Handler&& handler) {
  using DecayedHandler = std::decay_t<Handler>;
  struct Drain : std::enable_shared_from_this<Drain> {
    Drain(Socket& s, DecayedHandler&& h)
        : socket(s), timer(s.get_executor()), handler(std::move(h)) {}

    void start(std::chrono::milliseconds linger) {
      boost::beast::error_code ec;
      socket.shutdown(boost::asio::socket_base::shutdown_send, ec);
      if (ec) {
        // Nothing more can be read or sent (the peer is gone): close now, but complete
        // through the executor, never inside the caller.
        return boost::asio::post(socket.get_executor(),
                                 [self = this->shared_from_this()] { self->finish(); });
      }
      timer.expires_after(linger);
      timer.async_wait([self = this->shared_from_this()](boost::beast::error_code timer_ec) {
        if (timer_ec) return;
        boost::beast::error_code ignored;
        self->socket.cancel(ignored);  // ends the pending read
      });
      read();
    }

    void read() {
      socket.async_read_some(
          boost::asio::buffer(discarded),
          [self = this->shared_from_this()](boost::beast::error_code ec, std::size_t) {
            if (!ec) return self->read();
            self->finish();  // the peer closed, reset, or time is up
          });
    }

    void finish() {
      timer.cancel();
      boost::beast::error_code ignored;
      socket.close(ignored);
      handler(boost::beast::error_code{});
    }

    Socket& socket;
    boost::asio::steady_timer timer;
    // Where the discarded bytes go: small, as a peer rarely sends much after a close, and a
    // thousand connections closed at once each hold one while they linger.
    std::array<char, 512> discarded{};
    DecayedHandler handler;
  };
  std::make_shared<Drain>(socket, DecayedHandler(std::forward<Handler>(handler)))->start(linger);
}

}  // namespace parlor::server
