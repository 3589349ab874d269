// WsSession's member definitions, for the translation units that instantiate it: the server's
// (ws_session_plain.cpp and ws_session_tls.cpp) and the WebSocket session fuzz target's (Beast's
// test stream, tests/fuzz/ws_session_fuzz.cpp). Include it nowhere else.
#pragma once

#include "server/ws_session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <algorithm>
#include <span>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/request_id.h"
#include "protocol/text.h"
#include "server/log.h"
#include "server/log_throttle.h"

namespace parlor::server {

namespace websocket = beast::websocket;

namespace ws_session_detail {

// The transport under a session's stream: the TCP socket, plain or under TLS, or (in the
// fuzz target) Beast's test stream, which has no socket options.
template <class Stream, class Ws>
auto& transport(Ws& ws) {
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    return beast::get_lowest_layer(ws).socket();
  } else {
    return beast::get_lowest_layer(ws);
  }
}

template <class Stream, class Ws>
void set_send_buffer(Ws& ws, std::size_t bytes) {
  if constexpr (std::is_same_v<Stream, PlainWsSocket> || std::is_same_v<Stream, TlsStream>) {
    const net::socket_base::send_buffer_size option(
        static_cast<int>(std::min<std::size_t>(bytes, 1 << 30)));
    beast::error_code ignored;
    transport<Stream>(ws).set_option(option, ignored);
  }
}

// Drops the connection without a close handshake; a pending read completes with an error.
template <class Stream, class Ws>
void drop_transport(Ws& ws) {
  if constexpr (std::is_same_v<Stream, PlainWsSocket> || std::is_same_v<Stream, TlsStream>) {
    beast::error_code ignored;
    transport<Stream>(ws).close(ignored);
  } else {
    transport<Stream>(ws).close();
  }
}

}  // namespace ws_session_detail

template <class Stream>
WsSession<Stream>::WsSession(Stream&& stream, std::shared_ptr<ServerState> state, std::string peer,
                             std::unique_ptr<IpLimiter::Slot> slot)
    : ws_(std::move(stream)),
      state_(std::move(state)),
      slot_(std::move(slot)),
      tokens_(state_->config().rate_burst) {
  client_.address = std::move(peer);
  state_->metrics().connections.fetch_add(1);
  state_->metrics().connections_total.fetch_add(1);
}

template <class Stream>
WsSession<Stream>::~WsSession() {
  state_->metrics().connections.fetch_sub(1);
  state_->unregister_connection(this);
}

template <class Stream>
void WsSession<Stream>::run(beast::http::request<beast::http::string_body> request) {
  const ServerConfig& config = state_->config();
  // A TCP stream's own timer stops here (a plain session has a bare socket); the WebSocket
  // timeouts take over.
  if constexpr (std::is_same_v<Stream, TlsStream>) beast::get_lowest_layer(ws_).expires_never();
  if constexpr (!std::is_same_v<WsStream, PlainWsStream>) {
    websocket::stream_base::timeout timeouts;
    // Beast times the opening and closing handshakes; idle peers are the session's own
    // keep-alive (arm_keepalive). (Parlor's stream writes the 101 at once, and lingers at
    // most kLingerTime once closing.)
    timeouts.handshake_timeout = config.handshake_timeout;
    timeouts.idle_timeout = websocket::stream_base::none();
    timeouts.keep_alive_pings = false;
    ws_.set_option(timeouts);
    ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& response) {
      response.set(beast::http::field::server, "parlor");
    }));
  }
  // Pings and pongs are read by Beast and never reach on_read; they are signs of life too.
  ws_.control_callback([this](websocket::frame_type kind, beast::string_view) {
    last_heard_ = Clock::now();
    if (kind == websocket::frame_type::close) {
      peer_closed_ = true;
      peer_close_code_ = ws_.reason().code;
    }
  });
  ws_.next_layer().set_close_rewrite(
      [this](std::uint16_t code) { return close_replacement(code); });
  ws_.read_message_max(config.max_message_bytes);
  // The kernel may hold about as much unsent data for a client as the session's own queue:
  // without a bound, Linux grows a socket's send buffer to megabytes, and a client that
  // stops reading would be noticed (and closed as a slow consumer) only after that.
  ws_session_detail::set_send_buffer<Stream>(ws_, config.max_queue_bytes);
  client_.connection = this->shared_from_this();
  client_.finish_later = [weak = this->weak_from_this()](std::function<void()> work) {
    if (auto self = weak.lock()) {
      net::post(self->ws_.get_executor(), [self, work = std::move(work)] {
        work();
        if (!self->closing_) self->do_read();
      });
    }
  };
  state_->register_connection(client_.connection);
  ws_.async_accept(request,
                   beast::bind_front_handler(&WsSession::on_accept, this->shared_from_this()));
}

template <class Stream>
void WsSession<Stream>::on_accept(beast::error_code ec) {
  if (ec) return finish();
  accepted_ = true;
  last_heard_ = Clock::now();
  arm_keepalive(last_heard_ + state_->config().dead_after / 2);
  do_read();
  if (!writing_) do_write();  // anything queued before the upgrade response went out
}

template <class Stream>
void WsSession<Stream>::do_read() {
  // The replies to what was read so far go to the writer before the next frame is read. A
  // frame that fails the connection (already in the buffer, behind a good request) makes
  // Beast ask for its close frame at once, and nothing is written after a close: a reply
  // still in the inbox then would be lost, though its request was read and handled.
  drain_inbox();
  ws_.async_read(buffer_, beast::bind_front_handler(&WsSession::on_read, this->shared_from_this()));
}

template <class Stream>
void WsSession<Stream>::on_read(beast::error_code ec, std::size_t bytes) {
  if (ec) {
    // A protocol failure (1002, 1007, 1009): Beast has already sent the close frame, with the
    // reason close_replacement gave it, and torn the connection down. Other errors (the peer
    // closed or vanished) end the session too.
    return finish();
  }
  const auto received = Clock::now();
  last_heard_ = received;
  state_->metrics().bytes_in.add(bytes);
  if (ws_.got_binary()) {
    // The protocol is JSON in text frames only; a binary frame is not parsed as if it were.
    release_message();
    std::string reason = "binary frames are not part of the protocol; send JSON text frames";
    note_protocol_close(websocket::close_code::unknown_data, reason);
    return do_close(websocket::close_code::unknown_data, reason);
  }
  const std::string_view frame(static_cast<const char*>(buffer_.data().data()),
                               buffer_.data().size());
  if (!take_rate_token(received)) {
    if (++strikes_ > state_->config().rate_strikes_before_close) {
      release_message();
      return do_close(websocket::close_code::policy_error, "rate limit exceeded repeatedly");
    }
    // The dropped request is not decoded, but its reply still carries its `re`, so the
    // client knows which request to send again: the id alone is read, in one cheap pass.
    const Json re = protocol::scan_request_id(frame, state_->limits());
    release_message();
    state_->metrics().count_reject(std::string(wire_name(protocol::ErrorCode::kRateLimited)));
    send(make_frame(protocol::encode_error(re, protocol::ErrorCode::kRateLimited,
                                           "too many messages; slow down (request dropped)")));
    return do_read();
  }
  auto decoded = protocol::decode_request(frame, state_->limits());
  if (auto* error = std::get_if<protocol::DecodeError>(&decoded)) {
    release_message();
    state_->metrics().count_reject(std::string(protocol::wire_name(error->code)));
    send(make_frame(protocol::encode_error(error->id, error->code, error->message)));
  } else {
    client_.raw = frame;  // forwarded as it is in cluster mode
    const bool done =
        state_->handle(client_, std::move(std::get<protocol::Request>(decoded)), received);
    client_.raw = {};
    release_message();
    if (!done) return;  // the request ends later, through client_.finish_later, which reads on
  }
  if (!closing_) do_read();
}

template <class Stream>
void WsSession<Stream>::release_message() {
  buffer_.clear();
  if (buffer_.capacity() > kKeptReadBuffer) buffer_.shrink_to_fit();
}

template <class Stream>
void WsSession<Stream>::arm_keepalive(Clock::time_point at) {
  state_->keepalive().schedule(*this, at);
}

template <class Stream>
void WsSession<Stream>::keepalive_due() {
  net::post(ws_.get_executor(), [self = this->shared_from_this()] { self->on_keepalive(); });
}

template <class Stream>
void WsSession<Stream>::on_keepalive() {
  if (closing_) return;
  const auto dead_after = state_->config().dead_after;
  const auto now = Clock::now();
  if (now - last_heard_ < dead_after / 2) return arm_keepalive(last_heard_ + dead_after / 2);
  if (last_heard_ >= pinged_at_) {
    // Nothing asked since the peer was last heard from (an answered ping counts as heard).
    pinged_at_ = now;
    ws_.async_ping({}, [self = this->shared_from_this()](beast::error_code) {});
  }
  // The peer is dropped after the whole idle time of silence, and never less than half of
  // it after the ping went out (a timer that fires late must not shorten the answer's time).
  const auto drop_at = std::max(last_heard_ + dead_after, pinged_at_ + dead_after / 2);
  if (now < drop_at) return arm_keepalive(drop_at);
  // Silent for the whole idle time, the ping unanswered: a peer that is gone (or will not
  // read) gets no close handshake; dropping the TCP connection ends the read loop.
  ws_session_detail::drop_transport<Stream>(ws_);
}

template <class Stream>
bool WsSession<Stream>::take_rate_token(Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - last_refill_).count();
  last_refill_ = now;
  const ServerConfig& config = state_->config();
  tokens_ = std::min(config.rate_burst, tokens_ + elapsed * config.rate_per_second);
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

template <class Stream>
void WsSession<Stream>::send(Frame frame) {
  bool first = false;
  {
    std::lock_guard lock(inbox_mutex_);
    first = inbox_.empty();
    inbox_.push_back(std::move(frame));
  }
  // Posted, never dispatched: the sender may have more frames for this client in the same turn.
  if (first)
    net::post(ws_.get_executor(), [self = this->shared_from_this()] { self->drain_inbox(); });
}

template <class Stream>
void WsSession<Stream>::drain_inbox() {
  // Taken whole, and its memory with it: an idle session keeps no capacity for frames.
  std::vector<Frame> arrived;
  {
    std::lock_guard lock(inbox_mutex_);
    arrived.swap(inbox_);
  }
  for (Frame& frame : arrived) {
    // More frames may arrive between two turns of the strand than the queue's bound (a
    // thousand spectators joining a room push a thousand `room` frames to each member). A
    // client is slow only if its socket does not take them: what it takes now is written
    // before the bound is applied.
    if (accepted_ && !writing_ && over_bound(frame)) do_write();
    enqueue(std::move(frame));
  }
  // Data frames go out only after the upgrade response: the session writes them itself.
  if (accepted_ && !writing_) do_write();
}

template <class Stream>
bool WsSession<Stream>::over_bound(const Frame& frame) const {
  const ServerConfig& config = state_->config();
  // One frame larger than the byte bound (a long replay) may go out alone; a client that
  // lets frames pile up past either bound cannot keep up.
  return queue_.size() + 1 > config.max_queue_messages ||
         (!queue_.empty() && queued_bytes_ + frame->payload().size() > config.max_queue_bytes);
}

template <class Stream>
void WsSession<Stream>::enqueue(Frame frame) {
  if (closing_) {
    state_->metrics().frames_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (over_bound(frame)) {
    // The room never waits for a socket: a client that cannot keep up is closed.
    state_->metrics().slow_consumers_closed.fetch_add(1, std::memory_order_relaxed);
    state_->metrics().frames_dropped.fetch_add(queue_.size() + 1, std::memory_order_relaxed);
    return do_close(websocket::close_code::policy_error, "slow consumer: outbound queue full");
  }
  queued_bytes_ += frame->payload().size();
  state_->metrics().bytes_out.add(frame->payload().size());
  queue_.push_back(std::move(frame));
}

template <class Stream>
void WsSession<Stream>::do_write() {
  while (!queue_.empty() && !closing_) {
    frames_in_flight_ = static_cast<std::uint32_t>(std::min(queue_.size(), kMaxBatchFrames));
    writing_ = true;
    state_->metrics().frames_out.add(frames_in_flight_);
    state_->metrics().socket_writes.add();
    auto on_written = beast::bind_front_handler(&WsSession::on_write, this->shared_from_this());
    bool written = false;
    if (frames_in_flight_ == 1) {
      // The usual case: one frame, one piece (send rather than a gather).
      written =
          ws_.next_layer().write_frames(net::buffer(queue_.front()->wire()), std::move(on_written));
    } else if constexpr (std::is_same_v<Stream, PlainWsSocket>) {
      gathered_.clear();
      for (std::size_t i = 0; i < frames_in_flight_; ++i) {
        gathered_.push_back(net::buffer(queue_[i]->wire()));
      }
      written = ws_.next_layer().write_frames(std::span<const net::const_buffer>(gathered_),
                                              std::move(on_written));
    } else {
      // TLS: several frames copied into one piece, encrypted and written together rather
      // than as one TLS write each.
      gathered_.clear();
      for (std::size_t i = 0; i < frames_in_flight_; ++i) gathered_ += queue_[i]->wire();
      written = ws_.next_layer().write_frames(net::buffer(gathered_), std::move(on_written));
    }
    if (!written) return;  // on_write carries on
    writing_ = false;
    pop_written();
  }
}

template <class Stream>
void WsSession<Stream>::pop_written() {
  for (std::size_t i = 0; i < frames_in_flight_ && !queue_.empty(); ++i) {
    queued_bytes_ -= queue_.front()->payload().size();
    queue_.pop_front();
  }
  frames_in_flight_ = 0;
}

template <class Stream>
void WsSession<Stream>::on_write(beast::error_code ec, std::size_t) {
  writing_ = false;
  if (queue_.empty()) return;  // cleared by a close
  pop_written();
  if (ec) return finish();
  do_write();
}

template <class Stream>
void WsSession<Stream>::close(std::uint16_t code, std::string reason) {
  net::dispatch(ws_.get_executor(),
                [self = this->shared_from_this(), code, reason = std::move(reason)]() mutable {
                  self->do_close(code, std::move(reason));
                });
}

template <class Stream>
void WsSession<Stream>::do_close(std::uint16_t code, const std::string& reason) {
  if (closing_) return;
  closing_ = true;
  if (!writing_) {
    queue_.clear();
    queued_bytes_ = 0;
  }
  // A peer that does not read will not complete the close handshake either: give it a
  // moment, then drop the TCP connection.
  close_timer_ = std::make_unique<net::steady_timer>(ws_.get_executor());
  close_timer_->expires_after(std::chrono::seconds(2));
  close_timer_->async_wait([self = this->shared_from_this()](beast::error_code ec) {
    if (ec) return;
    ws_session_detail::drop_transport<Stream>(self->ws_);
  });
  websocket::close_reason why;
  why.code = code;
  // A close frame's payload is at most 125 bytes, and its reason must stay valid UTF-8.
  why.reason = std::string(protocol::truncate_utf8(reason, 123));
  ws_.async_close(why, [self = this->shared_from_this()](beast::error_code) { self->finish(); });
}

template <class Stream>
std::optional<typename FrameWriterStream<Stream>::CloseReplacement>
WsSession<Stream>::close_replacement(std::uint16_t code) {
  using Replacement = typename FrameWriterStream<Stream>::CloseReplacement;
  if (peer_closed_) {
    // Beast echoes the peer's close code. RFC 6455 7.4.2: codes of 5000 and above are not
    // valid (Beast fails the lower invalid ones itself), so they are not echoed: 1002.
    if (peer_close_code_ < 5000) return std::nullopt;
    Replacement out{websocket::close_code::protocol_error,
                    "invalid close code " + std::to_string(peer_close_code_)};
    note_protocol_close(out.code, out.reason);
    return out;
  }
  // Beast failing the connection: the code says which rule was broken.
  Replacement out{code, {}};
  switch (code) {
    case websocket::close_code::protocol_error:
      out.reason =
          "protocol error: a frame breaks RFC 6455 (reserved bits, opcode, masking, "
          "fragmentation or close payload)";
      break;
    case websocket::close_code::bad_payload:
      out.reason = "text frame is not valid UTF-8";
      break;
    case websocket::close_code::too_big:
      out.reason =
          "message larger than " + std::to_string(state_->config().max_message_bytes) + " bytes";
      break;
    default:
      return std::nullopt;
  }
  note_protocol_close(code, out.reason);
  return out;
}

template <class Stream>
void WsSession<Stream>::note_protocol_close(std::uint16_t code, const std::string& reason) {
  static LogThrottle log;
  state_->metrics().count_protocol_close(code);
  log.info("websocket from " + client_.address + " failed with " + std::to_string(code) + ": " +
           reason);
}

template <class Stream>
void WsSession<Stream>::finish() {
  if (finished_) return;
  finished_ = true;
  closing_ = true;
  if (close_timer_) close_timer_->cancel();
  state_->disconnected(client_);
  client_.connection.reset();  // breaks the session -> context -> session cycle
  client_.finish_later = nullptr;
  state_->unregister_connection(this);
}

}  // namespace parlor::server
