// Outgoing frames: the header in front of the payload, in one piece.
#include "server/frame.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace parlor::server {
namespace {

std::vector<unsigned char> header_of(std::size_t size) {
  std::array<unsigned char, 10> header{};
  const std::size_t used = text_frame_header(size, header);
  return {header.begin(), header.begin() + static_cast<std::ptrdiff_t>(used)};
}

TEST(TextFrameHeader, UsesTheShortestLengthFormRfc6455Allows) {
  using Bytes = std::vector<unsigned char>;
  EXPECT_EQ(header_of(0), (Bytes{0x81, 0}));
  EXPECT_EQ(header_of(125), (Bytes{0x81, 125}));
  EXPECT_EQ(header_of(126), (Bytes{0x81, 126, 0, 126}));
  EXPECT_EQ(header_of(65535), (Bytes{0x81, 126, 0xFF, 0xFF}));
  EXPECT_EQ(header_of(65536), (Bytes{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(header_of(0x0102030405ULL), (Bytes{0x81, 127, 0, 0, 0, 1, 2, 3, 4, 5}));
}

TEST(OutFrame, IsTheHeaderThenThePayloadInOnePiece) {
  for (const std::size_t size : {0, 1, 125, 126, 127, 65535, 65536, 70000}) {
    std::string payload(size, 'x');
    if (size > 0) payload.front() = '{';
    for (const Frame& frame : {make_frame(payload), [&] {
                                 std::string text = frame_text();
                                 text += payload;
                                 return frame_from_text(std::move(text));
                               }()}) {
      EXPECT_EQ(frame->payload(), payload) << size;
      const auto header = header_of(size);
      const std::string expected = std::string(header.begin(), header.end()) + payload;
      EXPECT_EQ(frame->wire(), expected) << size;
    }
  }
}

}  // namespace
}  // namespace parlor::server
