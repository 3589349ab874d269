// One client WebSocket connection, plain (ws://) or TLS (wss://), as parlor-bot and
// parlor-load use it: connect, handshake, a read loop that hands over each frame, and a
// write queue with one write in flight (Beast allows only one). Everything runs on the
// thread that runs the io_context. A connection is used once: to reconnect, make another.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "bots/net/ws_url.h"

namespace parlor::client {

using Endpoints = boost::asio::ip::tcp::resolver::results_type;

// How a connection ended: the step that failed ("connect", "tls_handshake", "handshake",
// "read", "write"), the error, and the WebSocket close code when the server closed it (0
// otherwise).
struct ConnectionEnd {
  std::string stage;
  boost::beast::error_code error;
  int close_code = 0;
  std::string close_reason;
  // When the server answered the upgrade request with something other than 101 (a refusal
  // such as 429): its HTTP status and body; 0 and empty otherwise.
  int http_status = 0;
  std::string http_body;
};

// What to do about a connection the server refused at the door, as one sentence for the
// person running the tool (e.g. "server refused: too many connections from this address
// (429); raise --max-connections-per-ip or spread the load"); empty for other endings.
std::string refusal_hint(const ConnectionEnd& end);

struct ConnectionHandlers {
  std::function<void()> on_open;                          // handshake done
  std::function<void(std::string_view text)> on_message;  // valid during the call only
  std::function<void(const ConnectionEnd& end)> on_end;   // once; never after close()
};

struct ConnectionOptions {
  std::chrono::seconds connect_timeout{10};
  // Ping the server when it has been silent for half of this and give up after all of it;
  // zero leaves Beast's client default (no idle timeout).
  std::chrono::seconds idle_timeout{0};
};

// A client TLS context for wss://: verifies the server against the system's CA store, or
// not at all when `verify` is false (self-signed development certificates).
std::shared_ptr<boost::asio::ssl::context> make_tls_context(bool verify);

class WsConnection : public std::enable_shared_from_this<WsConnection> {
 public:
  // `tls` is required when url.tls is set and ignored otherwise.
  WsConnection(boost::asio::io_context& io, WsUrl url,
               std::shared_ptr<boost::asio::ssl::context> tls, ConnectionHandlers handlers,
               ConnectionOptions options = {});
  void start(const Endpoints& endpoints);
  // Queues a text frame; dropped once the connection has ended.
  void send(std::string text);
  // Ends the connection at once (no close handshake) and silences the handlers.
  void close();
  bool open() const { return open_; }

 private:
  // A bare socket on the io_context's own executor: beast::tcp_stream's timeouts and
  // type-erased executor cost a little in every step of every read, and once the WebSocket
  // handshake has started Beast's own timeouts take over; before that, connect_timer_.
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp,
                                                  boost::asio::io_context::executor_type>;
  using PlainWs = boost::beast::websocket::stream<Socket, false>;
  using TlsWs = boost::beast::websocket::stream<boost::beast::ssl_stream<Socket>, false>;

  template <class F>
  decltype(auto) visit(F&& f) {
    if (plain_) return f(*plain_);
    return f(*secure_);
  }
  Socket& socket();
  void on_connect(boost::beast::error_code ec);
  void connected();  // TCP (and TLS) is up: the connect timer's work is done
  void do_ws_handshake();
  void on_handshake(boost::beast::error_code ec);
  void do_write();
  void do_read();
  void on_read(boost::beast::error_code ec);
  void end(const std::string& stage, boost::beast::error_code ec);
  void release();

  WsUrl url_;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // kept alive for the stream
  ConnectionHandlers handlers_;
  ConnectionOptions options_;
  std::unique_ptr<PlainWs> plain_;  // exactly one of these two
  std::unique_ptr<TlsWs> secure_;
  boost::asio::steady_timer connect_timer_;  // bounds connecting and the TLS handshake
  bool connecting_ = true;
  bool connect_timed_out_ = false;
  boost::beast::flat_buffer buffer_;
  // The server's answer to the upgrade request, kept to explain a refusal.
  boost::beast::websocket::response_type handshake_response_;
  std::deque<std::string> outbox_;
  bool writing_ = false;
  bool open_ = false;
  bool ended_ = false;
};

}  // namespace parlor::client
