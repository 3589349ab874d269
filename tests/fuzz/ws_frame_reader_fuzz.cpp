// Fuzz target: the bytes a client sends after its WebSocket upgrade, through Parlor's own frame
// reader (server/ws_frame_reader.h) on its own (how targets are built and run:
// docs/ARCHITECTURE.md, "Fuzzing"), fed as server/plain_ws_stream.cpp feeds it: a socket read's
// bytes are read until the reader needs more, and what follows a message is carried, copied, to
// the next read. Each piece is a heap block of its own size, so a read past a piece's end is
// ASan's to see.
//
// Input: two bytes choose the message limit (0 to 2000 bytes, so that 1009 is reached with
// short inputs), the next byte how many piece sizes follow (1 to 8), then the piece sizes, one
// byte each, taken in turn until the stream is used up (0: a read of nothing, then one byte);
// the rest is the client's bytes (frames must be masked; a zero masking key leaves the payload
// readable, which is how the seed corpus writes them).
//
// The oracle, at every read:
//  - `consumed` is at most the input, kNeedMore comes only when all of it was used, and (in
//    the run in pieces) the bytes past `consumed` are left as they were: the caller carries
//    them to the next read;
//  - a kMessage's buffer is within the limit, and a text message is valid UTF-8 by the
//    protocol's own checker (protocol/text.h, not the reader's);
//  - a ping's or pong's payload is at most 125 bytes; a kClose's code is 0 with no reason, or
//    one RFC 6455 7.4 lets a peer send with a UTF-8 reason of at most 123 bytes;
//  - a kFail's code is 1002, 1007 or 1009, and once a read fails every later one fails with
//    the same code.
// And across runs: the stream fed in one piece and in the chosen pieces gives the same events
// (kinds, codes, payloads, messages' bytes).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/text.h"
#include "server/ws_frame_reader.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using parlor::fuzz::FuzzInput;
using parlor::fuzz::require;
using parlor::server::WsFrameReader;
using Kind = WsFrameReader::Kind;

constexpr std::size_t kMaxLimit = 2000;

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNeedMore:
      return "kNeedMore";
    case Kind::kMessage:
      return "kMessage";
    case Kind::kPing:
      return "kPing";
    case Kind::kPong:
      return "kPong";
    case Kind::kClose:
      return "kClose";
    case Kind::kFail:
      return "kFail";
  }
  return "an unknown kind";
}

// RFC 6455 7.4, as the reader's header states it: 1000-1003, 1007-1014, and 3000 and above
// (5000 and above are the session's to answer).
bool valid_close_code(std::uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || code >= 3000;
}

// An event as the caller sees it, with what it points to copied (a payload lives until the
// next read, a message until the caller clears its buffer).
struct Recorded {
  Kind kind = Kind::kNeedMore;
  bool binary = false;
  std::uint16_t code = 0;
  std::string payload;
  std::string message;
  bool operator==(const Recorded&) const = default;
};

// Up to 40 bytes of `bytes`, printable ASCII as it is and the rest as \xNN.
std::string shown(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : bytes.substr(0, 40)) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
      out += c;
    } else {
      out += {'\\', 'x', kHex[b >> 4], kHex[b & 15]};
    }
  }
  out += bytes.size() > 40 ? "\"..." : "\"";
  return out + " (" + std::to_string(bytes.size()) + " bytes)";
}

std::string describe(const Recorded& event) {
  return std::string(kind_name(event.kind)) + (event.binary ? " binary" : "") + " code " +
         std::to_string(event.code) + " payload " + shown(event.payload) + " message " +
         shown(event.message);
}

// require(), with the description built only when the property is broken (every read is
// checked, and most descriptions are strings put together).
template <class Describe>
void check(bool holds, Describe&& what) {
  if (!holds) require(false, what());
}

// One reader, fed socket read by socket read, checking every read.
class Feeder {
 public:
  // `copy_rest`: what follows a message is copied for the next read, as plain_ws_stream does.
  // The one-piece run reads it in place: copying a long stream's rest after each of its short
  // messages would make the run quadratic.
  Feeder(std::size_t limit, bool copy_rest)
      : reader_(limit), limit_(limit), copy_rest_(copy_rest) {}

  // One socket read's bytes: read until the reader needs more (plain_ws_stream's pump()).
  void feed(std::span<unsigned char> piece) {
    if (failed_) {  // the stream stops at a failure; the reader must keep failing
      std::size_t used = 0;
      read_once(piece, used);
      return;
    }
    std::span<unsigned char> input = piece;
    std::vector<unsigned char> left_over;
    do {
      std::size_t used = 0;
      const Kind kind = read_once(input, used);
      input = input.subspan(used);
      if (kind == Kind::kNeedMore || kind == Kind::kFail) return;
      if (kind == Kind::kMessage && copy_rest_) {
        // Frames behind a message wait for the next read, in a copy of their own.
        std::vector<unsigned char> rest(input.begin(), input.end());
        left_over.swap(rest);
        input = left_over;
      }
    } while (!input.empty());
  }

  const std::vector<Recorded>& events() const { return events_; }

 private:
  Kind read_once(std::span<unsigned char> input, std::size_t& used) {
    // Whatever the read does not use must reach the next one as it was.
    const bool check_tail = input.size() <= 256;
    const std::vector<unsigned char> before =
        check_tail ? std::vector<unsigned char>(input.begin(), input.end())
                   : std::vector<unsigned char>();
    used = input.size() + 1;  // a read that leaves it unset is caught below
    const WsFrameReader::Event event = reader_.read(input, used, message_);
    check(used <= input.size(), [&] {
      return "a read consumed " + std::to_string(used) + " of " + std::to_string(input.size()) +
             " bytes";
    });
    if (check_tail) {
      require(std::equal(before.begin() + static_cast<std::ptrdiff_t>(used), before.end(),
                         input.begin() + static_cast<std::ptrdiff_t>(used)),
              "a read changed bytes past what it consumed");
    }
    if (failed_) {
      check(event.kind == Kind::kFail && event.code == fail_code_, [&] {
        return "a read after a failure with " + std::to_string(fail_code_) + " returned " +
               kind_name(event.kind) + " code " + std::to_string(event.code);
      });
      return Kind::kFail;
    }
    Recorded recorded{event.kind, event.binary, event.code, std::string(event.payload), {}};
    switch (event.kind) {
      case Kind::kNeedMore:
        check(used == input.size(), [&] {
          return "kNeedMore with " + std::to_string(input.size() - used) + " bytes not consumed";
        });
        return event.kind;
      case Kind::kMessage:
        recorded.message.assign(static_cast<const char*>(message_.data().data()), message_.size());
        message_.clear();
        check(recorded.message.size() <= limit_, [&] {
          return "a message of " + std::to_string(recorded.message.size()) +
                 " bytes past the limit of " + std::to_string(limit_);
        });
        require(event.binary || parlor::protocol::is_valid_utf8(recorded.message),
                "a text message is not valid UTF-8");
        break;
      case Kind::kPing:
      case Kind::kPong:
        check(recorded.payload.size() <= 125, [&] {
          return "a control payload of " + std::to_string(recorded.payload.size()) + " bytes";
        });
        break;
      case Kind::kClose:
        if (event.code == 0) {
          require(recorded.payload.empty(), "a close with no code has a reason");
          break;
        }
        check(valid_close_code(event.code),
              [&] { return "a close with code " + std::to_string(event.code); });
        check(recorded.payload.size() <= 123, [&] {
          return "a close reason of " + std::to_string(recorded.payload.size()) + " bytes";
        });
        require(parlor::protocol::is_valid_utf8(recorded.payload),
                "a close reason is not valid UTF-8");
        break;
      case Kind::kFail:
        check(event.code == 1002 || event.code == 1007 || event.code == 1009,
              [&] { return "a failure with code " + std::to_string(event.code); });
        failed_ = true;
        fail_code_ = event.code;
        break;
      default:
        require(false, "a read returned an unknown kind");
    }
    events_.push_back(std::move(recorded));
    return event.kind;
  }

  WsFrameReader reader_;
  std::size_t limit_;
  bool copy_rest_;
  boost::beast::flat_buffer message_;
  std::vector<Recorded> events_;
  bool failed_ = false;
  std::uint16_t fail_code_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const std::size_t high = in.byte();
  const std::size_t low = in.byte();
  const std::size_t limit = ((high << 8) | low) % (kMaxLimit + 1);
  std::vector<std::size_t> pieces(1 + in.pick(8));
  for (std::size_t& piece : pieces) piece = in.byte();
  const std::string_view stream = in.rest();

  Feeder whole(limit, false);
  {
    std::vector<unsigned char> bytes(stream.begin(), stream.end());
    whole.feed(bytes);
    whole.feed({});
  }

  Feeder cut(limit, true);
  std::size_t at = 0;
  for (std::size_t i = 0; at < stream.size(); ++i) {
    std::size_t take = pieces[i % pieces.size()];
    if (take == 0) {
      cut.feed({});
      take = 1;
    }
    take = std::min(take, stream.size() - at);
    std::vector<unsigned char> piece(stream.begin() + static_cast<std::ptrdiff_t>(at),
                                     stream.begin() + static_cast<std::ptrdiff_t>(at + take));
    cut.feed(piece);
    at += take;
  }
  cut.feed({});

  const auto& a = whole.events();
  const auto& b = cut.events();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    check(a[i] == b[i], [&] {
      return "event " + std::to_string(i) + " differs: " + describe(a[i]) + " in one piece, " +
             describe(b[i]) + " in pieces";
    });
  }
  require(a.size() == b.size(), std::to_string(a.size()) + " events in one piece, " +
                                    std::to_string(b.size()) + " in pieces");
  return 0;
}
