// The layer between a WebSocket session and its socket (or TLS stream) that lets the session
// write its own data frames — every frame it has queued, in one gather write — while Beast
// still writes the upgrade response and the control frames (pong, keep-alive ping, close).
//
// Why: Beast writes one message per operation, so a move's `ok` and the mover's state push
// cost two sends; written together they cost one, which on loopback is about a quarter of
// the kernel's work for a move (docs/BENCHMARKS.md). Reading stays entirely Beast's (frame
// parsing, unmasking, UTF-8 checks, control frames).
//
// All writes, Beast's and the session's, go out whole and one at a time in the order they
// were asked for, so a control frame never lands inside a data frame. Once Beast has asked
// for a close frame, later data frames are refused: nothing follows a close.
// Everything here runs on the connection's strand; there is no locking.
#pragma once

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "server/fifo.h"
#include "server/frame.h"
#include "server/linger.h"

namespace parlor::server {

template <class Inner>
class FrameWriterStream {
 public:
  using next_layer_type = Inner;
  using executor_type = typename Inner::executor_type;

  explicit FrameWriterStream(Inner&& inner) : inner_(std::move(inner)) {}

  next_layer_type& next_layer() noexcept { return inner_; }
  const next_layer_type& next_layer() const noexcept { return inner_; }
  executor_type get_executor() noexcept { return inner_.get_executor(); }

  // Beast reads into a ring buffer and offers its free space as two pieces, the second
  // almost always empty (the ring starts over once a message is consumed). One piece is
  // read with recv rather than recvmsg, sparing the kernel an iovec import on every read.
  // Only a socket reads that way: a TLS stream reads into its own buffer whatever it is
  // given, and a second read path through it would instantiate its chain of read operations
  // twice, for nothing.
  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    if constexpr (requires(Inner & socket) { socket.non_blocking(true); }) {
      auto piece = boost::asio::buffer_sequence_begin(buffers);
      const auto end = boost::asio::buffer_sequence_end(buffers);
      if (piece != end) {
        const boost::asio::mutable_buffer first = *piece;
        bool rest_empty = true;
        for (++piece; piece != end; ++piece)
          rest_empty = rest_empty && boost::asio::mutable_buffer(*piece).size() == 0;
        if (rest_empty) return inner_.async_read_some(first, std::forward<Token>(token));
      }
    }
    return inner_.async_read_some(buffers, std::forward<Token>(token));
  }

  // What replaces a close frame of Beast's that has a code and no reason. Beast fails a
  // connection (a protocol error, a text frame that is not UTF-8, a message too big) and
  // answers a peer's close with such a bare frame; the session names the reason, and may
  // change the code (a peer's invalid close code is answered with 1002, not echoed).
  // Returns nullopt to leave the frame as it is.
  struct CloseReplacement {
    std::uint16_t code;
    std::string reason;  // at most 123 bytes
  };
  using CloseRewrite = std::function<std::optional<CloseReplacement>(std::uint16_t code)>;
  void set_close_rewrite(CloseRewrite rewrite) { close_rewrite_ = std::move(rewrite); }

  // Beast's writes: the upgrade response and control frames.
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
        [this](auto handler, const ConstBuffers& bytes) {
          if (starts_close_frame(bytes)) {
            close_asked_ = true;
            if (auto replacement = rewritten_close(bytes)) {
              // Beast asked for its 4 bytes to be written; it is told they were.
              const std::size_t asked = boost::asio::buffer_size(bytes);
              auto frame = std::make_shared<std::string>(std::move(*replacement));
              submit(boost::asio::buffer(*frame),
                     [asked, frame, handler = std::move(handler)](boost::beast::error_code ec,
                                                                  std::size_t) mutable {
                       handler(ec, ec ? std::size_t{0} : asked);
                     });
              return;
            }
          }
          submit(bytes, std::move(handler));
        },
        token, buffers);
  }

  // The session's data frames, headers included. On a plain socket, when nothing else is
  // being written and the socket takes every byte at once (the usual case), they are written
  // here and now: returns true and `handler` is dropped unused, which spares the event loop a
  // completion per write. Otherwise returns false and `handler` runs once they are all
  // written or have failed — with operation_aborted, writing nothing, once a close frame has
  // been asked for. (A TLS stream always takes the second way: a record cut short by a full
  // socket has to be finished before anything else is written.)
  template <class ConstBuffers, class Handler>
  bool write_frames(const ConstBuffers& buffers, Handler&& handler) {
    if (close_asked_) {
      boost::asio::post(get_executor(), [handler = std::forward<Handler>(handler)]() mutable {
        handler(boost::asio::error::operation_aborted, std::size_t{0});
      });
      return false;
    }
    if constexpr (requires(Inner & socket) { socket.non_blocking(true); }) {
      if (!busy_) {
        boost::beast::error_code ec;
        if (!inner_.non_blocking()) inner_.non_blocking(true, ec);
        const std::size_t written = ec ? 0 : inner_.write_some(buffers, ec);
        if (!ec && written == boost::asio::buffer_size(buffers)) return true;
        if (ec && ec != boost::asio::error::would_block) {
          boost::asio::post(get_executor(),
                            [ec, handler = std::forward<Handler>(handler)]() mutable {
                              handler(ec, std::size_t{0});
                            });
          return false;
        }
        // The socket's buffer is full: the rest goes out when it drains.
        boost::beast::buffers_suffix<ConstBuffers> rest(buffers);
        rest.consume(written);
        submit(rest, std::forward<Handler>(handler));
        return false;
      }
    }
    submit(buffers, std::forward<Handler>(handler));
    return false;
  }

 private:
  struct Waiting {
    virtual ~Waiting() = default;
    virtual void start(FrameWriterStream& stream) = 0;
  };

  template <class ConstBuffers, class Handler>
  struct WaitingWrite final : Waiting {
    WaitingWrite(const ConstBuffers& b, Handler&& h) : buffers(b), handler(std::move(h)) {}
    void start(FrameWriterStream& stream) override {
      stream.write_now(buffers, std::move(handler));
    }
    ConstBuffers buffers;
    Handler handler;
  };

  template <class ConstBuffers>
  static bool starts_close_frame(const ConstBuffers& buffers) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::const_buffer part = *it;
      if (part.size() == 0) continue;
      // A close frame's first byte: FIN with opcode 8 (control frames are never fragmented).
      return *static_cast<const unsigned char*>(part.data()) == 0x88;
    }
    return false;
  }

  // A bare close frame (unmasked, as a server sends it: 0x88, length 2, the code) rewritten
  // with the session's reason, or nullopt.
  template <class ConstBuffers>
  std::optional<std::string> rewritten_close(const ConstBuffers& buffers) const {
    if (!close_rewrite_ || boost::asio::buffer_size(buffers) != 4) return std::nullopt;
    std::array<unsigned char, 4> frame{};
    boost::asio::buffer_copy(boost::asio::buffer(frame), buffers);
    if (frame[1] != 2) return std::nullopt;
    const auto code = static_cast<std::uint16_t>((frame[2] << 8) | frame[3]);
    auto replacement = close_rewrite_(code);
    if (!replacement) return std::nullopt;
    const std::string reason = replacement->reason.substr(0, 123);
    std::string out;
    out.push_back(static_cast<char>(0x88));
    out.push_back(static_cast<char>(2 + reason.size()));
    out.push_back(static_cast<char>(replacement->code >> 8));
    out.push_back(static_cast<char>(replacement->code & 0xff));
    out += reason;
    return out;
  }

  template <class ConstBuffers, class Handler>
  void submit(const ConstBuffers& buffers, Handler&& handler) {
    using Decayed = std::decay_t<Handler>;
    if (busy_) {
      waiting_.push_back(std::make_unique<WaitingWrite<ConstBuffers, Decayed>>(
          buffers, Decayed(std::forward<Handler>(handler))));
      return;
    }
    write_now(buffers, Decayed(std::forward<Handler>(handler)));
  }

  template <class ConstBuffers, class Handler>
  void write_now(const ConstBuffers& buffers, Handler handler) {
    busy_ = true;
    auto done = [this, handler = std::move(handler)](boost::beast::error_code ec,
                                                     std::size_t bytes) mutable {
      start_next();
      handler(ec, bytes);
    };
    boost::asio::async_write(inner_, buffers, std::move(done));
  }

  // Called as a write finishes, before its handler runs: writes that handler asks for queue
  // behind the ones already waiting, so the order of asking is kept.
  void start_next() {
    if (waiting_.empty()) {
      busy_ = false;
      return;
    }
    auto next = std::move(waiting_.front());
    waiting_.pop_front();
    next->start(*this);
  }

  Inner inner_;
  bool busy_ = false;
  bool close_asked_ = false;
  CloseRewrite close_rewrite_;
  Fifo<std::unique_ptr<Waiting>> waiting_;
};

// Beast closes the WebSocket by tearing down the layer below it.
template <class Inner>
void teardown(boost::beast::role_type role, FrameWriterStream<Inner>& stream,
              boost::beast::error_code& ec) {
  using boost::beast::websocket::teardown;
  teardown(role, stream.next_layer(), ec);
}

// On a plain socket the connection lingers (linger.h): Beast's own teardown stops reading
// after the first piece and closes with the peer's bytes unread, which resets the
// connection, and a client still sending (the rest of an oversize message, say) can lose
// the close frame that says why it was closed.
template <class Inner, class TeardownHandler>
void async_teardown(boost::beast::role_type role, FrameWriterStream<Inner>& stream,
                    TeardownHandler&& handler) {
  if constexpr (requires(Inner & socket) { socket.non_blocking(true); }) {
    linger_and_close(stream.next_layer(), kLingerTime, std::forward<TeardownHandler>(handler));
  } else {
    using boost::beast::websocket::async_teardown;
    async_teardown(role, stream.next_layer(), std::forward<TeardownHandler>(handler));
  }
}

}  // namespace parlor::server
