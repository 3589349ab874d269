// The WebSocket frame reader on its own: frames built here byte by byte, fed whole, in pieces
// and back to back. The same rules over a real socket are tests/conformance/.
#include "server/ws_frame_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "games/testing/self_play.h"

namespace parlor::server {
namespace {

using Kind = WsFrameReader::Kind;

constexpr std::size_t kLimit = 16384;

struct FrameSpec {
  unsigned opcode = 1;
  std::string payload;
  bool fin = true;
  unsigned rsv = 0;
  bool masked = true;
};

// A client frame as RFC 6455 5.2 lays it out, masked with a fixed key.
std::string frame(const FrameSpec& spec) {
  std::string out;
  out.push_back(static_cast<char>((spec.fin ? 0x80 : 0) | spec.rsv | spec.opcode));
  const std::size_t size = spec.payload.size();
  const char mask_bit = spec.masked ? static_cast<char>(0x80) : 0;
  if (size < 126) {
    out.push_back(static_cast<char>(mask_bit | static_cast<char>(size)));
  } else if (size <= 0xFFFF) {
    out.push_back(static_cast<char>(mask_bit | 126));
    out.push_back(static_cast<char>(size >> 8));
    out.push_back(static_cast<char>(size & 0xFF));
  } else {
    out.push_back(static_cast<char>(mask_bit | 127));
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
  }
  const unsigned char key[4] = {0x37, 0xFA, 0x21, 0x3D};
  if (spec.masked) out.append(reinterpret_cast<const char*>(key), 4);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(spec.masked ? static_cast<char>(spec.payload[i] ^ key[i % 4]) : spec.payload[i]);
  }
  return out;
}

std::string text(std::string payload) {
  return frame({.opcode = 1, .payload = std::move(payload)});
}

// Feeds `bytes` in pieces of `piece` bytes and collects every event, with the message
// buffer's contents for each kMessage.
struct Fed {
  std::vector<WsFrameReader::Event> events;
  std::vector<std::string> messages;
  std::vector<std::string> payloads;  // of control events
};
Fed feed(WsFrameReader& reader, std::string bytes, std::size_t piece = SIZE_MAX) {
  Fed fed;
  boost::beast::flat_buffer message;
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t end = std::min(bytes.size(), piece == SIZE_MAX ? bytes.size() : at + piece);
    std::span<unsigned char> input(reinterpret_cast<unsigned char*>(bytes.data()) + at, end - at);
    while (!input.empty()) {
      std::size_t used = 0;
      const auto event = reader.read(input, used, message);
      input = input.subspan(used);
      if (event.kind == Kind::kNeedMore) {
        EXPECT_TRUE(input.empty()) << "kNeedMore with input left";
        break;
      }
      fed.events.push_back(event);
      fed.payloads.emplace_back(event.payload);
      if (event.kind == Kind::kMessage) {
        fed.messages.emplace_back(static_cast<const char*>(message.data().data()), message.size());
        message.clear();
      }
      if (event.kind == Kind::kFail) return fed;
    }
    at = end;
  }
  return fed;
}

std::uint16_t failure(const std::string& bytes, std::size_t piece = SIZE_MAX,
                      std::size_t limit = kLimit) {
  WsFrameReader reader(limit);
  const Fed fed = feed(reader, bytes, piece);
  if (fed.events.empty() || fed.events.back().kind != Kind::kFail) return 0;
  return fed.events.back().code;
}

TEST(WsFrameReader, ReadsAMessageWholeOrByteByByte) {
  const std::string bytes = text(R"({"type":"ping","id":1})");
  for (const std::size_t piece : {SIZE_MAX, std::size_t{1}, std::size_t{3}}) {
    WsFrameReader reader(kLimit);
    const Fed fed = feed(reader, bytes, piece);
    ASSERT_EQ(fed.events.size(), 1u) << "piece " << piece;
    EXPECT_EQ(fed.events[0].kind, Kind::kMessage);
    EXPECT_FALSE(fed.events[0].binary);
    EXPECT_EQ(fed.messages[0], R"({"type":"ping","id":1})");
  }
}

// One read stops at the end of a message: what follows is the next read's.
TEST(WsFrameReader, StopsAtTheEndOfAMessage) {
  std::string bytes = text("first") + text("second");
  WsFrameReader reader(kLimit);
  boost::beast::flat_buffer message;
  std::size_t used = 0;
  auto event = reader.read(std::span(reinterpret_cast<unsigned char*>(bytes.data()), bytes.size()),
                           used, message);
  EXPECT_EQ(event.kind, Kind::kMessage);
  EXPECT_EQ(used, text("first").size());
  message.clear();
  std::size_t more = 0;
  event = reader.read(
      std::span(reinterpret_cast<unsigned char*>(bytes.data()) + used, bytes.size() - used), more,
      message);
  EXPECT_EQ(event.kind, Kind::kMessage);
  EXPECT_EQ(used + more, bytes.size());
  EXPECT_EQ(std::string(static_cast<const char*>(message.data().data()), message.size()), "second");
}

TEST(WsFrameReader, LengthsOfEachForm) {
  for (const std::size_t size : {0, 125, 126, 127, 65535, 65536}) {
    WsFrameReader reader(1 << 20);
    const Fed fed = feed(reader, text(std::string(size, 'x')), 1000);
    ASSERT_EQ(fed.events.size(), 1u) << size;
    EXPECT_EQ(fed.messages[0].size(), size);
  }
}

// A fragmented message with control frames between its fragments (RFC 6455 5.4).
TEST(WsFrameReader, FragmentsWithControlFramesBetween) {
  const std::string bytes = frame({.opcode = 1, .payload = "frag", .fin = false}) +
                            frame({.opcode = 9, .payload = "are you there"}) +
                            frame({.opcode = 0, .payload = "men", .fin = false}) +
                            frame({.opcode = 10, .payload = "pong"}) +
                            frame({.opcode = 0, .payload = "ted"});
  WsFrameReader reader(kLimit);
  const Fed fed = feed(reader, bytes, 2);
  ASSERT_EQ(fed.events.size(), 3u);
  EXPECT_EQ(fed.events[0].kind, Kind::kPing);
  EXPECT_EQ(fed.payloads[0], "are you there");
  EXPECT_EQ(fed.events[1].kind, Kind::kPong);
  EXPECT_EQ(fed.payloads[1], "pong");
  EXPECT_EQ(fed.events[2].kind, Kind::kMessage);
  EXPECT_EQ(fed.messages[0], "fragmented");
}

TEST(WsFrameReader, BinaryMessagesAreMarkedAndNotCheckedAsText) {
  WsFrameReader reader(kLimit);
  const Fed fed = feed(reader, frame({.opcode = 2, .payload = std::string("\xff\xfe\x00", 3)}));
  ASSERT_EQ(fed.events.size(), 1u);
  EXPECT_TRUE(fed.events[0].binary);
  EXPECT_EQ(fed.messages[0], std::string("\xff\xfe\x00", 3));
}

TEST(WsFrameReader, BrokenFramingIs1002) {
  EXPECT_EQ(failure(frame({.payload = "x", .rsv = 0x40})), 1002) << "reserved bit";
  EXPECT_EQ(failure(frame({.payload = "x", .masked = false})), 1002) << "unmasked";
  for (const unsigned opcode : {3u, 7u, 11u, 15u}) {
    EXPECT_EQ(failure(frame({.opcode = opcode, .payload = ""})), 1002) << "opcode " << opcode;
  }
  EXPECT_EQ(failure(frame({.opcode = 9, .payload = "x", .fin = false})), 1002) << "fragmented ping";
  EXPECT_EQ(failure(frame({.opcode = 9, .payload = std::string(126, 'x')})), 1002) << "long ping";
  EXPECT_EQ(failure(frame({.opcode = 0, .payload = "x"})), 1002) << "nothing to continue";
  EXPECT_EQ(failure(frame({.opcode = 1, .payload = "a", .fin = false}) + text("b")), 1002)
      << "a new message inside a fragmented one";
  // 16-bit length 5, 64-bit length 200: longer forms than they need.
  EXPECT_EQ(failure(std::string("\x81\xFE\x00\x05", 4) + std::string(4, '\0') + "hello"), 1002);
  EXPECT_EQ(failure(std::string("\x81\xFF", 2) + std::string("\0\0\0\0\0\0\0\xC8", 8) +
                    std::string(4, '\0')),
            1002);
  // The 64-bit length's top bit.
  EXPECT_EQ(failure(std::string("\x82\xFF\x80", 3) + std::string(7, '\0') + std::string(4, '\0')),
            1002);
}

// Decided at the header: none of the payload needs to arrive.
TEST(WsFrameReader, OversizeMessagesAre1009AtTheHeader) {
  const std::string whole = text(std::string(kLimit + 1, 'x'));
  EXPECT_EQ(failure(whole.substr(0, 8)), 1009);
  EXPECT_EQ(failure(text(std::string(kLimit, 'x'))), 0) << "exactly the limit";
  std::string fragments;
  for (std::size_t i = 0; i < kLimit / 64; ++i) {
    fragments += frame({.opcode = i == 0 ? 1u : 0u, .payload = std::string(64, 'x'), .fin = false});
  }
  EXPECT_EQ(failure(fragments + frame({.opcode = 0, .payload = "x"})), 1009) << "fragments";
  EXPECT_EQ(failure(fragments + frame({.opcode = 0, .payload = ""})), 0)
      << "fragments at the limit";
  EXPECT_EQ(failure(frame({.opcode = 2, .payload = std::string(kLimit + 1, 'x')}).substr(0, 8)),
            1009)
      << "binary";
}

TEST(WsFrameReader, InvalidTextIs1007AtTheFirstBadByte) {
  // The bad byte is the second of three pieces of one frame: the failure comes with it.
  const std::string good = "\xce\xba\xe1\xbd\xb9";
  const std::string bytes = text(good + "\xf4\x90\x80\x80" + "edited");
  const std::size_t header = bytes.size() - good.size() - 4 - 6;
  WsFrameReader reader(kLimit);
  const Fed before = feed(reader, bytes.substr(0, header + good.size()));
  EXPECT_TRUE(before.events.empty());
  const Fed after = feed(reader, bytes.substr(header + good.size(), 2));
  ASSERT_EQ(after.events.size(), 1u);
  EXPECT_EQ(after.events[0].kind, Kind::kFail);
  EXPECT_EQ(after.events[0].code, 1007);
  // A sequence cut short by the message's end.
  EXPECT_EQ(failure(text("ok\xe2\x82")), 1007);
  // Across fragments.
  EXPECT_EQ(failure(frame({.opcode = 1, .payload = "\xe2\x82", .fin = false}) +
                    frame({.opcode = 0, .payload = "\x28"})),
            1007);
  EXPECT_EQ(failure(frame({.opcode = 1, .payload = "\xe2\x82", .fin = false}) +
                    frame({.opcode = 0, .payload = "\xac"})),
            0)
      << "a euro sign split between fragments";
}

TEST(WsFrameReader, CloseFrames) {
  WsFrameReader reader(kLimit);
  Fed fed = feed(reader, frame({.opcode = 8, .payload = std::string("\x03\xe8", 2) + "bye"}));
  ASSERT_EQ(fed.events.size(), 1u);
  EXPECT_EQ(fed.events[0].kind, Kind::kClose);
  EXPECT_EQ(fed.events[0].code, 1000);
  EXPECT_EQ(fed.payloads[0], "bye");

  WsFrameReader empty(kLimit);
  fed = feed(empty, frame({.opcode = 8, .payload = ""}));
  ASSERT_EQ(fed.events.size(), 1u);
  EXPECT_EQ(fed.events[0].code, 0) << "no code";

  EXPECT_EQ(failure(frame({.opcode = 8, .payload = "\x03"})), 1002) << "one byte";
  for (const int code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999}) {
    const std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
    EXPECT_EQ(failure(frame({.opcode = 8, .payload = payload})), 1002) << code;
  }
  for (const int code : {1000, 1003, 1007, 1014, 3000, 4999, 5000, 65535}) {
    const std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
    EXPECT_EQ(failure(frame({.opcode = 8, .payload = payload})), 0) << code;
  }
  EXPECT_EQ(failure(frame({.opcode = 8, .payload = std::string("\x03\xe8\xff", 3)})), 1007);
}

TEST(WsFrameReader, AFailedReaderStaysFailed) {
  WsFrameReader reader(kLimit);
  EXPECT_EQ(feed(reader, frame({.payload = "", .rsv = 0x10})).events.back().code, 1002);
  const Fed again = feed(reader, text("fine"));
  ASSERT_EQ(again.events.size(), 1u);
  EXPECT_EQ(again.events[0].kind, Kind::kFail);
}

TEST(Utf8Checker, TheEdgesOfRfc3629) {
  const auto valid = [](const std::string& s) {
    Utf8Checker checker;
    return checker.add(std::span(reinterpret_cast<const unsigned char*>(s.data()), s.size())) &&
           checker.complete();
  };
  EXPECT_TRUE(valid("plain ascii"));
  EXPECT_TRUE(valid("\xc2\x80\xdf\xbf"));                  // U+0080, U+07FF
  EXPECT_TRUE(valid("\xe0\xa0\x80\xef\xbf\xbf"));          // U+0800, U+FFFF
  EXPECT_TRUE(valid("\xed\x9f\xbf\xee\x80\x80"));          // around the surrogates
  EXPECT_TRUE(valid("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));  // U+10000, U+10FFFF
  EXPECT_FALSE(valid("\xc0\xaf"));                         // overlong
  EXPECT_FALSE(valid("\xe0\x80\xaf"));                     // overlong
  EXPECT_FALSE(valid("\xf0\x80\x80\xaf"));                 // overlong
  EXPECT_FALSE(valid("\xed\xa0\x80"));                     // a surrogate
  EXPECT_FALSE(valid("\xf4\x90\x80\x80"));                 // past U+10FFFF
  EXPECT_FALSE(valid("\xf5\x80\x80\x80"));
  EXPECT_FALSE(valid("\x80"));      // a lone continuation
  EXPECT_FALSE(valid("\xe2\x82"));  // cut short
}

// Random valid traffic (messages of random sizes and fragments, pings between), cut into
// random pieces, reads back exactly as sent. PARLOR_SEED replays a run.
TEST(WsFrameReader, RandomTrafficInRandomPieces) {
  const std::uint64_t seed = parlor::testing::test_seed(20261127);
  std::cout << "[ seed     ] " << seed << "\n";
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::string bytes;
    std::vector<std::string> sent;
    std::vector<std::string> pings;
    const int messages = 1 + static_cast<int>(rng() % 5);
    for (int m = 0; m < messages; ++m) {
      std::string payload(rng() % 3000, 'a');
      for (char& c : payload) c = static_cast<char>('a' + rng() % 26);
      sent.push_back(payload);
      const int fragments = 1 + static_cast<int>(rng() % 4);
      std::size_t at = 0;
      for (int f = 0; f < fragments; ++f) {
        const bool last = f + 1 == fragments;
        const std::size_t take = last ? payload.size() - at : rng() % (payload.size() - at + 1);
        bytes +=
            frame({.opcode = f == 0 ? 1u : 0u, .payload = payload.substr(at, take), .fin = last});
        at += take;
        if (!last && rng() % 2 == 0) {
          pings.push_back("p" + std::to_string(pings.size()));
          bytes += frame({.opcode = 9, .payload = pings.back()});
        }
      }
    }
    WsFrameReader reader(kLimit);
    const Fed fed = feed(reader, bytes, 1 + rng() % 700);
    std::vector<std::string> got_pings;
    for (std::size_t i = 0; i < fed.events.size(); ++i) {
      ASSERT_NE(fed.events[i].kind, Kind::kFail) << "seed " << seed << " round " << round;
      if (fed.events[i].kind == Kind::kPing) got_pings.push_back(fed.payloads[i]);
    }
    ASSERT_EQ(fed.messages, sent) << "seed " << seed << " round " << round;
    ASSERT_EQ(got_pings, pings) << "seed " << seed << " round " << round;
  }
}

}  // namespace
}  // namespace parlor::server
