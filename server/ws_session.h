// One WebSocket client: a read loop, a bounded outbound queue written in batches with one
// write in flight, a token-bucket rate limit, and keep-alive pings — all on the session's
// strand. Templated over the stream so plain and TLS connections share the code
// (instantiated in ws_session_plain.cpp for PlainWsSocket and ws_session_tls.cpp for TlsStream).
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "server/connection.h"
#include "server/fifo.h"
#include "server/frame_writer_stream.h"
#include "server/ip_limiter.h"
#include "server/net.h"
#include "server/plain_ws_stream.h"
#include "server/server_state.h"

namespace parlor::server {

template <class Stream>
class WsSession final : public Connection, public std::enable_shared_from_this<WsSession<Stream>> {
 public:
  // `peer`: the client's address (through a trusted proxy, the one it forwarded).
  WsSession(Stream&& stream, std::shared_ptr<ServerState> state, std::string peer,
            std::unique_ptr<IpLimiter::Slot> slot);
  ~WsSession() override;

  // Completes the WebSocket handshake for an upgrade request already read.
  void run(beast::http::request<beast::http::string_body> request);

  void send(Frame frame) override;
  void close(std::uint16_t code, std::string reason) override;
  void keepalive_due() override;

 private:
  void on_accept(beast::error_code ec);
  void do_read();
  void on_read(beast::error_code ec, std::size_t bytes);
  // Drops the message read, and the buffer's memory if one large message grew it.
  void release_message();
  void arm_keepalive(Clock::time_point at);
  void on_keepalive();
  bool take_rate_token(Clock::time_point now);
  void drain_inbox();
  // Whether queueing `frame` would pass --max-queue-messages or --max-queue-bytes.
  bool over_bound(const Frame& frame) const;
  void enqueue(Frame frame);
  void do_write();
  void pop_written();
  void on_write(beast::error_code ec, std::size_t bytes);
  void do_close(std::uint16_t code, const std::string& reason);
  // What replaces Beast's bare close frames (see FrameWriterStream::set_close_rewrite).
  std::optional<typename FrameWriterStream<Stream>::CloseReplacement> close_replacement(
      std::uint16_t code);
  // Counts and logs (throttled) a connection failed for breaking the protocol.
  void note_protocol_close(std::uint16_t code, const std::string& reason);
  void finish();

  // Frames written per gather write, within the buffers of one sendmsg of Asio's.
  static constexpr std::size_t kMaxBatchFrames = 32;

  // A plain socket's WebSocket layer is Parlor's own (plain_ws_stream.h: nothing held while
  // idle); TLS, and the fuzz target's test stream, keep Beast's.
  using WsStream = std::conditional_t<std::is_same_v<Stream, PlainWsSocket>, PlainWsStream,
                                      beast::websocket::stream<FrameWriterStream<Stream>, false>>;
  WsStream ws_;
  std::shared_ptr<ServerState> state_;
  std::unique_ptr<IpLimiter::Slot> slot_;
  // The message being read. Beast prepares about a TCP frame's worth (1,536 bytes) before each
  // read, so that much stays; a larger one, grown by one large message (up to the 16 KiB
  // limit), is freed once that message is handled, rather than kept by an idle connection.
  // Parlor's own stream writes only the message itself, so nothing stays.
  static constexpr std::size_t kKeptReadBuffer = std::is_same_v<WsStream, PlainWsStream> ? 0 : 2048;
  beast::flat_buffer buffer_;
  ClientContext client_;
  // Frames handed over by rooms and the lobby from any thread. They reach the queue together
  // when the strand next runs, so what a move sends one client (`ok`, then its state) goes
  // out in one write.
  std::mutex inbox_mutex_;
  std::vector<Frame> inbox_;
  Fifo<Frame> queue_;
  std::size_t queued_bytes_ = 0;
  // The write in flight: the first frames_in_flight_ frames of queue_, as a gather list
  // (plain) or copied into one piece (TLS) when there are several.
  std::uint32_t frames_in_flight_ = 0;
  int strikes_ = 0;
  std::conditional_t<std::is_same_v<Stream, PlainWsSocket>, std::vector<net::const_buffer>,
                     std::string>
      gathered_;
  bool accepted_ = false;  // the WebSocket handshake is done
  bool writing_ = false;
  bool closing_ = false;
  bool finished_ = false;
  // The peer's close frame, once read (Beast answers it; an invalid code gets 1002).
  bool peer_closed_ = false;
  std::uint16_t peer_close_code_ = 0;
  double tokens_;
  Clock::time_point last_refill_ = Clock::now();
  // Made once closing: a connection spends nearly all its life open.
  std::unique_ptr<net::steady_timer> close_timer_;
  // Keep-alive: the session's own, not Beast's idle timeout, which re-arms a timer (a cancel,
  // an aborted completion and a new wait) on every message read. Here a message only records
  // when it arrived; the server's wheel (keepalive_wheel.h) has the session look at that
  // after half the idle time, ping a silent peer, and drop it after the whole idle time
  // without a frame (a pong counts). A ping is outstanding while nothing has been heard
  // since it went out.
  Clock::time_point last_heard_ = Clock::now();
  Clock::time_point pinged_at_{};
};

extern template class WsSession<PlainWsSocket>;
extern template class WsSession<TlsStream>;

}  // namespace parlor::server
