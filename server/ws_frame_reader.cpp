#include "server/ws_frame_reader.h"

#include <algorithm>
#include <cstring>

namespace parlor::server {

namespace {

constexpr unsigned kContinuation = 0x0;
constexpr unsigned kText = 0x1;
constexpr unsigned kBinary = 0x2;
constexpr unsigned kClose = 0x8;
constexpr unsigned kPing = 0x9;
constexpr unsigned kPong = 0xA;

constexpr std::uint16_t kProtocolError = 1002;
constexpr std::uint16_t kBadPayload = 1007;
constexpr std::uint16_t kTooBig = 1009;

// RFC 6455 7.4: the codes a peer may send. 1004-1006 and 1015 are reserved, 1016-2999 are for
// future versions of the protocol, below 1000 is unused. 3000 and above belong to libraries
// and applications (a code of 5000 or more is answered by the session, not here).
bool valid_close_code(std::uint16_t code) {
  if (code < 1000 || (code >= 1016 && code <= 2999)) return false;
  return code != 1004 && code != 1005 && code != 1006 && code != 1015;
}

}  // namespace

bool Utf8Checker::add(std::span<const unsigned char> bytes) {
  if (failed_) return false;
  for (const unsigned char b : bytes) {
    if (need_ == 0) {
      if (b < 0x80) continue;
      if (b >= 0xC2 && b <= 0xDF) {
        need_ = 1;
      } else if (b >= 0xE0 && b <= 0xEF) {
        need_ = 2;
        if (b == 0xE0) low_ = 0xA0;   // no overlong three-byte forms
        if (b == 0xED) high_ = 0x9F;  // no surrogates
      } else if (b >= 0xF0 && b <= 0xF4) {
        need_ = 3;
        if (b == 0xF0) low_ = 0x90;   // no overlong four-byte forms
        if (b == 0xF4) high_ = 0x8F;  // nothing past U+10FFFF
      } else {
        failed_ = true;  // a continuation byte with nothing to continue, C0, C1, F5-FF
        return false;
      }
      continue;
    }
    if (b < low_ || b > high_) {
      failed_ = true;
      return false;
    }
    --need_;
    low_ = 0x80;
    high_ = 0xBF;
  }
  return true;
}

WsFrameReader::Event WsFrameReader::read(std::span<unsigned char> input, std::size_t& consumed,
                                         boost::beast::flat_buffer& message) {
  consumed = 0;
  while (!failed_) {
    if (!in_payload_) {
      while (header_have_ < header_size_) {
        if (consumed == input.size()) return {};
        header_[header_have_++] = input[consumed++];
        if (header_have_ == 2 && !start_header()) return fail(kProtocolError);
      }
      if (!finish_header()) return {Kind::kFail, false, fail_code_, {}};
    }
    const auto take =
        static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, input.size() - consumed));
    take_payload(input.subspan(consumed, take), message);
    consumed += take;
    if (failed_) return {Kind::kFail, false, fail_code_, {}};
    remaining_ -= take;
    if (remaining_ > 0) return {};  // the input ends inside the payload
    in_payload_ = false;
    header_have_ = 0;
    header_size_ = 2;
    Event event = end_of_frame();
    if (event.kind != Kind::kNeedMore) return event;
  }
  return {Kind::kFail, false, fail_code_, {}};
}

bool WsFrameReader::start_header() {
  const unsigned char first = header_[0];
  const unsigned char second = header_[1];
  fin_ = (first & 0x80) != 0;
  opcode_ = static_cast<std::uint8_t>(first & 0x0F);
  // No extension was agreed, so no reserved bit may be set; a client always masks (5.1).
  if ((first & 0x70) != 0 || (second & 0x80) == 0) return false;
  const unsigned length = second & 0x7F;
  switch (opcode_) {
    case kContinuation:
      if (!in_message_) return false;
      break;
    case kText:
    case kBinary:
      if (in_message_) return false;  // a new message inside a fragmented one
      break;
    case kClose:
    case kPing:
    case kPong:
      if (!fin_ || length > 125) return false;  // control frames: whole and short (5.5)
      break;
    default:
      return false;  // reserved opcodes
  }
  header_size_ = static_cast<std::uint8_t>(2 + (length == 126 ? 2 : length == 127 ? 8 : 0) + 4);
  return true;
}

bool WsFrameReader::finish_header() {
  const unsigned short_length = header_[1] & 0x7F;
  std::uint64_t length = short_length;
  std::size_t at = 2;
  if (short_length == 126) {
    length = (std::uint64_t{header_[2]} << 8) | header_[3];
    at = 4;
    if (length < 126) {  // not the shortest form
      fail(kProtocolError);
      return false;
    }
  } else if (short_length == 127) {
    length = 0;
    for (std::size_t i = 0; i < 8; ++i) length = (length << 8) | header_[2 + i];
    at = 10;
    if ((length >> 63) != 0 || length <= 0xFFFF) {
      fail(kProtocolError);
      return false;
    }
  }
  std::memcpy(mask_.data(), header_.data() + at, 4);
  mask_at_ = 0;
  remaining_ = length;
  in_payload_ = true;
  if (opcode_ < kClose) {
    // A data frame: the message's size is known here, before any of its payload is read.
    if (opcode_ != kContinuation) {
      in_message_ = true;
      message_binary_ = opcode_ == kBinary;
      message_size_ = 0;
      utf8_.reset();
    }
    // (The first test: a limit lowered while a message was being read.)
    if (message_size_ > max_message_ || length > max_message_ - message_size_) {
      fail(kTooBig);
      return false;
    }
    message_size_ += length;
  } else {
    control_.clear();
  }
  return true;
}

void WsFrameReader::take_payload(std::span<unsigned char> bytes,
                                 boost::beast::flat_buffer& message) {
  for (unsigned char& b : bytes) {
    b ^= mask_[mask_at_];
    mask_at_ = static_cast<std::uint8_t>((mask_at_ + 1) & 3);
  }
  if (opcode_ >= kClose) {
    control_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return;
  }
  if (!message_binary_ && !utf8_.add(bytes)) {
    fail(kBadPayload);
    return;
  }
  if (bytes.empty()) return;
  auto room = message.prepare(bytes.size());
  std::memcpy(room.data(), bytes.data(), bytes.size());
  message.commit(bytes.size());
}

WsFrameReader::Event WsFrameReader::end_of_frame() {
  if (opcode_ >= kClose) return end_of_control_frame();
  if (!fin_) return {};
  in_message_ = false;
  if (!message_binary_ && !utf8_.complete()) return fail(kBadPayload);
  return {Kind::kMessage, message_binary_, 0, {}};
}

WsFrameReader::Event WsFrameReader::end_of_control_frame() {
  if (opcode_ == kPing) return {Kind::kPing, false, 0, control_};
  if (opcode_ == kPong) return {Kind::kPong, false, 0, control_};
  if (control_.empty()) return {Kind::kClose, false, 0, {}};
  if (control_.size() == 1) return fail(kProtocolError);
  const auto code = static_cast<std::uint16_t>((static_cast<unsigned char>(control_[0]) << 8) |
                                               static_cast<unsigned char>(control_[1]));
  if (!valid_close_code(code)) return fail(kProtocolError);
  const std::string_view reason = std::string_view(control_).substr(2);
  Utf8Checker checker;
  if (!checker.add(
          std::span(reinterpret_cast<const unsigned char*>(reason.data()), reason.size())) ||
      !checker.complete()) {
    return fail(kBadPayload);
  }
  return {Kind::kClose, false, code, reason};
}

WsFrameReader::Event WsFrameReader::fail(std::uint16_t code) {
  failed_ = true;
  fail_code_ = code;
  return {Kind::kFail, false, code, {}};
}

}  // namespace parlor::server
