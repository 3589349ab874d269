// Parlor's own WebSocket endpoint for plain sockets: what a WsSession asks of Beast's
// WebSocket stream (accept, read a message, ping, close, and the hooks around them), with
// nothing held per connection while it is idle.
//
// Why: an idle connection under Beast's stream holds its read buffer (1.5 KiB), the message
// buffer Beast prepares before each read (1.5 KiB), the pending read operation (about 1 KiB)
// and the stream's state (about 2.7 KiB), most of an idle player's cost to the server
// (docs/BENCHMARKS.md, "Memory per idle connection"). Here an idle connection waits for
// readability with nothing to read into; once the socket is readable its bytes are read into
// a buffer of the I/O thread's and parsed (ws_frame_reader.h), and only what a message
// leaves over (a frame cut short, frames behind it) is kept until the next read.
//
// It behaves as Beast's stream does where the session depends on it:
// - a message is handed over one per async_read; pings are answered and pongs noted inside
//   a read, and each is passed to the control callback (a sign of life);
// - a frame that breaks RFC 6455 fails the connection: a bare close frame with the code
//   (rewritten with the session's reason by FrameWriterStream's close rewrite), the
//   connection torn down (lingering, linger.h), then the read completes with an error;
// - a peer's close is answered with its code (none if it sent none), then the same;
// - async_close sends the close frame, then lingers until the peer closes or time is up.
// Data frames are the session's own (FrameWriterStream::write_frames), as over Beast.
// Everything runs on the connection's strand. TLS connections keep Beast's stream: their idle
// cost is OpenSSL's buffers, not these.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/stream.hpp>  // frame_type

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "server/frame_writer_stream.h"
#include "server/net.h"
#include "server/ws_frame_reader.h"

namespace parlor::server {

class PlainWsStream {
 public:
  using executor_type = ConnectionExecutor;
  using next_layer_type = FrameWriterStream<PlainWsSocket>;
  using Handler = std::function<void(beast::error_code)>;
  using ReadHandler = std::function<void(beast::error_code, std::size_t)>;
  using ControlCallback =
      std::function<void(beast::websocket::frame_type, beast::string_view payload)>;

  explicit PlainWsStream(PlainWsSocket&& socket);

  executor_type get_executor() { return writer_.get_executor(); }
  // The layer that writes: the session's data frames, and every frame written here.
  next_layer_type& next_layer() { return writer_; }

  void read_message_max(std::size_t bytes) { reader_.set_max_message_bytes(bytes); }
  void control_callback(ControlCallback callback) { control_callback_ = std::move(callback); }
  // The code of the peer's close frame, once read (its reason is not kept).
  beast::websocket::close_reason reason() const {
    return beast::websocket::close_reason(peer_close_code_);
  }
  // Whether the last message read was binary.
  bool got_binary() const { return got_binary_; }

  // Answers the upgrade request: 101, or a refusal (then the handler gets an error).
  void async_accept(const beast::http::request<beast::http::string_body>& request, Handler handler);
  // Reads the next whole message into `buffer`, which must stay alive until `handler` runs.
  void async_read(beast::flat_buffer& buffer, ReadHandler handler);
  void async_ping(const beast::websocket::ping_data& payload, Handler handler);
  void async_close(const beast::websocket::close_reason& why, Handler handler);

 private:
  // Parses what is left over, then reads the socket until a message is complete, the socket
  // has nothing more (then waits for it), or the connection ends.
  void pump();
  void wait_readable();
  // What follows an event the reader found: reading on (a ping answered, a pong noted),
  // handing the message over, or nothing (the connection is being closed; the read ends
  // once it is).
  enum class Next { kRead, kDeliver, kEnded };
  Next on_event(const WsFrameReader::Event& event);
  // Reads events from `input` (advanced past what was used) until one is not kRead.
  Next parse(std::span<unsigned char>& input);
  // Writes a control frame (opcode, payload) after everything asked for before it.
  void write_control(unsigned opcode, std::string_view payload, Handler handler);
  // Answers a ping (its handler, unlike the session's writes, holds nothing alive).
  void write_pong(std::string_view payload);
  // Fails the connection or answers a peer's close: the close frame, then the teardown, then
  // the read completes with `result`.
  void close_and_end_read(std::string_view close_payload, beast::error_code result);
  void teardown(Handler then);
  // Ends the pending read with `ec` and `bytes` (once the pongs still unwritten are done, if
  // `ec` ends the connection).
  void complete_read(beast::error_code ec, std::size_t bytes);
  void hand_over_read(beast::error_code ec, std::size_t bytes);

  FrameWriterStream<PlainWsSocket> writer_;
  WsFrameReader reader_;
  // Bytes read past the message handed over, waiting for the next async_read.
  std::string left_over_;
  beast::flat_buffer* message_ = nullptr;
  // Set while a read is asked for. A wait for readability is pending only while it is set.
  ReadHandler read_handler_;
  ControlCallback control_callback_;
  std::uint16_t peer_close_code_ = beast::websocket::close_code::none;
  bool got_binary_ = false;
  bool close_sent_ = false;            // no frame may follow: reads end, the connection is going
  std::uint16_t pongs_unwritten_ = 0;  // queued or being written
};

}  // namespace parlor::server
