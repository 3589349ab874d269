#include "server/plain_ws_stream.h"

#include <boost/asio/post.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/system/errc.hpp>

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "server/linger.h"
#include "server/ws_handshake.h"

namespace parlor::server {

namespace websocket = beast::websocket;
using Kind = WsFrameReader::Kind;

namespace {

// What a readable socket is read into: one buffer per I/O thread, shared by all of the
// thread's connections (a connection parses what it read before the thread runs another).
std::span<unsigned char> thread_read_buffer() {
  static constexpr std::size_t kSize = std::size_t{64} * 1024;
  thread_local std::vector<unsigned char> buffer;
  if (buffer.empty()) buffer.resize(kSize);
  return buffer;
}

std::string close_payload(std::uint16_t code, std::string_view reason = {}) {
  if (code == 0) return {};
  std::string payload;
  payload.push_back(static_cast<char>(code >> 8));
  payload.push_back(static_cast<char>(code & 0xFF));
  payload.append(reason);
  return payload;
}

// The protocol's default limit (PROTOCOL.md); the session sets the server's own.
constexpr std::size_t kDefaultMaxMessage = std::size_t{16} * 1024;

}  // namespace

PlainWsStream::PlainWsStream(PlainWsSocket&& socket)
    : writer_(std::move(socket)), reader_(kDefaultMaxMessage) {
  beast::error_code ignored;
  writer_.next_layer().non_blocking(true, ignored);
}

void PlainWsStream::async_accept(const beast::http::request<beast::http::string_body>& request,
                                 Handler handler) {
  UpgradeAnswer answer = answer_upgrade(request);
  auto bytes = std::make_shared<std::string>(std::move(answer.bytes));
  writer_.async_write_some(
      net::buffer(*bytes), [this, bytes, accepted = answer.accepted, handler = std::move(handler)](
                               beast::error_code ec, std::size_t) {
        if (ec || accepted) return handler(ec);
        // Refused: the answer says why; nothing else is read or written.
        close_sent_ = true;
        teardown([handler](beast::error_code) { handler(websocket::error::upgrade_declined); });
      });
}

void PlainWsStream::async_read(beast::flat_buffer& buffer, ReadHandler handler) {
  read_handler_ = std::move(handler);
  message_ = &buffer;
  // A read never completes inside the call that asks for it.
  if (!left_over_.empty() || close_sent_) {
    net::post(get_executor(), [this] { pump(); });
    return;
  }
  wait_readable();
}

void PlainWsStream::async_ping(const websocket::ping_data& payload, Handler handler) {
  write_control(0x9, std::string_view(payload.data(), payload.size()), std::move(handler));
}

void PlainWsStream::async_close(const websocket::close_reason& why, Handler handler) {
  if (close_sent_) {
    net::post(get_executor(),
              [handler = std::move(handler)] { handler(net::error::operation_aborted); });
    return;
  }
  close_sent_ = true;
  const auto code = static_cast<std::uint16_t>(why.code);
  write_control(0x8, close_payload(code, std::string_view(why.reason.data(), why.reason.size())),
                [this, handler = std::move(handler)](beast::error_code) mutable {
                  teardown(std::move(handler));
                });
}

PlainWsStream::Next PlainWsStream::parse(std::span<unsigned char>& input) {
  while (!input.empty()) {
    std::size_t used = 0;
    const auto event = reader_.read(input, used, *message_);
    input = input.subspan(used);
    if (event.kind == Kind::kNeedMore) break;
    const Next next = on_event(event);
    if (next != Next::kRead) return next;
  }
  return Next::kRead;
}

void PlainWsStream::pump() {
  if (close_sent_) return complete_read(websocket::error::closed, 0);
  if (!left_over_.empty()) {
    std::span<unsigned char> input(reinterpret_cast<unsigned char*>(left_over_.data()),
                                   left_over_.size());
    const Next next = parse(input);
    left_over_.erase(0, left_over_.size() - input.size());
    if (left_over_.empty()) std::string().swap(left_over_);  // an idle connection keeps nothing
    if (next == Next::kDeliver) return complete_read({}, message_->size());
    if (next == Next::kEnded) return;
  }
  const std::span<unsigned char> buffer = thread_read_buffer();
  for (;;) {
    beast::error_code ec;
    const std::size_t size =
        writer_.next_layer().read_some(net::buffer(buffer.data(), buffer.size()), ec);
    if (ec == net::error::would_block || ec == net::error::try_again) return wait_readable();
    if (ec) return complete_read(ec, 0);  // the peer closed or vanished
    std::span<unsigned char> input = buffer.first(size);
    const Next next = parse(input);
    if (next == Next::kDeliver) {
      // Frames behind the message wait for the next read (the buffer is the thread's).
      left_over_.assign(input.begin(), input.end());
      return complete_read({}, message_->size());
    }
    if (next == Next::kEnded) return;
    // Less than a buffer's worth: the socket has nothing more for now (a wait re-arms the
    // readiness notification, so bytes that arrive meanwhile are not missed).
    if (size < buffer.size()) return wait_readable();
  }
}

void PlainWsStream::wait_readable() {
  // The lambda holds no reference: the pending read's handler keeps the session, and so
  // this stream, alive until the wait completes.
  writer_.next_layer().async_wait(net::socket_base::wait_read, [this](beast::error_code ec) {
    if (ec) return complete_read(ec, 0);  // the socket was closed: dropped, or torn down
    pump();
  });
}

PlainWsStream::Next PlainWsStream::on_event(const WsFrameReader::Event& event) {
  switch (event.kind) {
    case Kind::kMessage:
      got_binary_ = event.binary;
      return Next::kDeliver;
    case Kind::kPing:
      if (control_callback_) control_callback_(websocket::frame_type::ping, event.payload);
      write_pong(event.payload);
      return Next::kRead;
    case Kind::kPong:
      if (control_callback_) control_callback_(websocket::frame_type::pong, event.payload);
      return Next::kRead;
    case Kind::kClose:
      peer_close_code_ =
          event.code == 0 ? static_cast<std::uint16_t>(websocket::close_code::none) : event.code;
      if (control_callback_) control_callback_(websocket::frame_type::close, event.payload);
      close_and_end_read(close_payload(event.code), websocket::error::closed);
      return Next::kEnded;
    case Kind::kFail:
      close_and_end_read(close_payload(event.code),
                         boost::system::errc::make_error_code(boost::system::errc::protocol_error));
      return Next::kEnded;
    case Kind::kNeedMore:
      break;
  }
  return Next::kRead;
}

void PlainWsStream::write_control(unsigned opcode, std::string_view payload, Handler handler) {
  auto frame = std::make_shared<std::string>();
  frame->reserve(2 + payload.size());
  frame->push_back(static_cast<char>(0x80 | opcode));
  frame->push_back(static_cast<char>(payload.size()));
  frame->append(payload);
  writer_.async_write_some(net::buffer(*frame), [frame, handler = std::move(handler)](
                                                    beast::error_code ec, std::size_t) {
    if (handler) handler(ec);
  });
}

void PlainWsStream::write_pong(std::string_view payload) {
  ++pongs_unwritten_;
  // Safe to hold `this`: a read that ends the connection waits for this (complete_read).
  write_control(0xA, payload, [this](beast::error_code) { --pongs_unwritten_; });
}

void PlainWsStream::close_and_end_read(std::string_view close_payload, beast::error_code result) {
  if (close_sent_) return complete_read(result, 0);  // closing already: the read just ends
  close_sent_ = true;
  write_control(0x8, close_payload, [this, result](beast::error_code) {
    teardown([this, result](beast::error_code) { complete_read(result, 0); });
  });
}

void PlainWsStream::teardown(Handler then) {
  linger_and_close(writer_.next_layer(), kLingerTime, std::move(then));
}

void PlainWsStream::complete_read(beast::error_code ec, std::size_t bytes) {
  if (ec && pongs_unwritten_ > 0) {
    // The connection ends with pongs to the peer's last pings still queued or being written,
    // and nothing but the pending read's handler keeps the session, and so this stream, alive
    // under them. The read ends once they are done. (An empty write completes after every
    // write asked for before it, whether or not they could be written.)
    writer_.async_write_some(net::const_buffer(),
                             [this, ec](beast::error_code, std::size_t) { hand_over_read(ec, 0); });
    return;
  }
  hand_over_read(ec, bytes);
}

void PlainWsStream::hand_over_read(beast::error_code ec, std::size_t bytes) {
  ReadHandler handler = std::move(read_handler_);
  read_handler_ = nullptr;
  message_ = nullptr;
  if (handler) handler(ec, bytes);
}

}  // namespace parlor::server
