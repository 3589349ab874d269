// One outgoing WebSocket message in its wire form: the header of an unmasked text frame, then
// the payload, in one string shared by every recipient without copies. The header is
// written in front of the payload, in room left for it, so a frame goes to the socket as
// one piece: a client's single frame is one send rather than a gather of two.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace parlor::server {

// The header of an unmasked, unfragmented text frame (server to client, RFC 6455 §5.2) for a
// payload of `size` bytes; returns how many of the 10 bytes it used.
inline std::size_t text_frame_header(std::size_t size, std::array<unsigned char, 10>& header) {
  header[0] = 0x81;  // FIN, opcode 1 (text)
  if (size < 126) {
    header[1] = static_cast<unsigned char>(size);
    return 2;
  }
  if (size <= 0xFFFF) {
    header[1] = 126;
    header[2] = static_cast<unsigned char>(size >> 8);
    header[3] = static_cast<unsigned char>(size);
    return 4;
  }
  header[1] = 127;
  const auto wide = static_cast<std::uint64_t>(size);
  for (std::size_t i = 0; i < 8; ++i) {
    header[2 + i] = static_cast<unsigned char>(wide >> (56 - 8 * i));
  }
  return 10;
}

class OutFrame {
 public:
  // Room for the longest header.
  static constexpr std::size_t kHeaderRoom = 10;

  // `text`: kHeaderRoom bytes of room (frame_text() makes them), then the payload.
  explicit OutFrame(std::string text) : bytes_(std::move(text)) {
    std::array<unsigned char, 10> header;
    const std::size_t used = text_frame_header(bytes_.size() - kHeaderRoom, header);
    start_ = kHeaderRoom - used;
    std::memcpy(bytes_.data() + start_, header.data(), used);
  }

  std::string_view payload() const { return std::string_view(bytes_).substr(kHeaderRoom); }
  // What goes on the wire: header and payload.
  std::string_view wire() const { return std::string_view(bytes_).substr(start_); }

 private:
  std::string bytes_;
  std::size_t start_ = 0;
};

using Frame = std::shared_ptr<const OutFrame>;

// A string to write a payload into, behind the room for its header; `capacity` is a hint
// for the payload's length.
inline std::string frame_text(std::size_t capacity = 0) {
  std::string text;
  text.reserve(OutFrame::kHeaderRoom + capacity);
  text.append(OutFrame::kHeaderRoom, '\0');
  return text;
}

// The frame of a payload written behind frame_text()'s room.
inline Frame frame_from_text(std::string text) {
  return std::make_shared<const OutFrame>(std::move(text));
}

// The frame of a payload written elsewhere: copied once behind its header.
inline Frame make_frame(std::string_view payload) {
  std::string text = frame_text(payload.size());
  text.append(payload);
  return frame_from_text(std::move(text));
}

}  // namespace parlor::server
