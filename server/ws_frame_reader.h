// Reads the frames a WebSocket client sends a server (RFC 6455 section 5), from whatever
// pieces the socket delivers, and says when a message or a control frame is complete or when
// the connection must be failed, with the close code that says why.
//
// Why Parlor's own: Beast's WebSocket stream keeps a 1.5 KiB read buffer and its state in
// every connection, idle or not, about three quarters of what an idle player costs the
// server (docs/BENCHMARKS.md, "Memory per idle connection"). This reader keeps only the
// state of a frame in progress (a header cut short, a mask's position, a UTF-8 sequence cut
// short); the bytes come from a buffer the caller owns, one per I/O thread, and a message's
// payload goes straight to the caller's message buffer.
//
// Pure: no socket, no clock, no allocation but the message's and a control frame's payload.
// What it enforces, as tests/conformance/websocket_conformance_test.cpp checks it:
// - reserved bits, reserved opcodes, an unmasked frame, a fragmented or oversize control
//   frame, a continuation with no message to continue, a new message inside a fragmented
//   one, a length in a longer form than it needs or with its top bit set: 1002;
// - a message (all its fragments) over the limit: 1009, decided at the frame header, before
//   any of its payload is read;
// - text that is not UTF-8: 1007 as soon as the first byte that cannot continue it arrives,
//   not at the message's end; a close reason that is not UTF-8: 1007;
// - a close payload of one byte, or a close code RFC 6455 7.4 reserves: 1002.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace parlor::server {

// UTF-8 checked a piece at a time (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF), failing at the first byte that no valid text could continue with.
class Utf8Checker {
 public:
  // False at the first invalid byte of `bytes`; the checker then stays failed.
  bool add(std::span<const unsigned char> bytes);
  // True when no sequence is cut short: the text so far ends on a character's end.
  bool complete() const { return need_ == 0; }
  void reset() { *this = Utf8Checker(); }

 private:
  std::uint8_t need_ = 0;                   // continuation bytes still expected
  unsigned char low_ = 0x80, high_ = 0xBF;  // the range of the next continuation byte
  bool failed_ = false;
};

class WsFrameReader {
 public:
  enum class Kind {
    kNeedMore,  // every byte given was used; nothing is complete yet
    kMessage,   // a whole text or binary message is in the message buffer
    kPing,
    kPong,
    kClose,
    kFail,  // the connection must be failed with `code`
  };
  struct Event {
    Kind kind = Kind::kNeedMore;
    bool binary = false;     // kMessage: a binary message (not checked as UTF-8)
    std::uint16_t code = 0;  // kClose: the peer's close code, 0 if it sent none; kFail: ours
    // kPing and kPong: the payload; kClose: the reason. Valid until the next read.
    std::string_view payload;
  };

  explicit WsFrameReader(std::size_t max_message_bytes) : max_message_(max_message_bytes) {}
  void set_max_message_bytes(std::size_t bytes) { max_message_ = bytes; }

  // Reads frames from `input`, unmasking their payload in place, until one event is complete
  // or the input is used up; `consumed` says how many bytes were used (the rest belongs to
  // later frames: give it to the next read). A data message's payload is appended to
  // `message` as it arrives; kMessage says it is whole. After kFail every read fails.
  Event read(std::span<unsigned char> input, std::size_t& consumed,
             boost::beast::flat_buffer& message);

 private:
  // The fixed two bytes are in: checks them and says how long the whole header is.
  bool start_header();
  // The whole header is in: checks the length and takes the mask.
  bool finish_header();
  void take_payload(std::span<unsigned char> bytes, boost::beast::flat_buffer& message);
  Event end_of_frame();
  Event end_of_control_frame();
  Event fail(std::uint16_t code);

  // (Laid out small: a reader is part of every connection.)
  std::size_t max_message_;
  std::uint64_t remaining_ = 0;     // payload bytes of the frame still to come
  std::uint64_t message_size_ = 0;  // of the data message being read, across its fragments
  std::string control_;             // a control frame's payload (at most 125 bytes)
  Utf8Checker utf8_;
  // The frame being read: its header, collected byte by byte when it arrives in pieces.
  std::array<unsigned char, 14> header_{};
  std::array<unsigned char, 4> mask_{};
  std::uint8_t header_have_ = 0;
  std::uint8_t header_size_ = 2;
  std::uint8_t mask_at_ = 0;  // the mask byte the next payload byte takes
  std::uint8_t opcode_ = 0;
  std::uint16_t fail_code_ = 0;
  bool in_payload_ = false;
  bool fin_ = false;
  bool in_message_ = false;  // a data message is being read, across its fragments
  bool message_binary_ = false;
  bool failed_ = false;
};

}  // namespace parlor::server
