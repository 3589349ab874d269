#include "protocol/plain_move.h"

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>

namespace parlor::protocol {
namespace {

// A one-pass reader of the plain subset of JSON. Every method returns false as soon as the
// input leaves the subset (or is not JSON): the caller then gives up on the whole frame.
class PlainReader {
 public:
  PlainReader(std::string_view text, const Limits& limits)
      : at_(text.data()), end_(text.data() + text.size()), limits_(limits) {}

  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  void skip_space() {
    if (at_ == end_ || !is_space(*at_)) return;  // the compact form: nothing to skip
    compact_ = false;
    do {
      ++at_;
    } while (at_ != end_ && is_space(*at_));
  }

  // Whether what was read since the last call is in the form json_text::value writes (no
  // space between tokens, an object's keys in increasing order, no -0): then its text is that
  // of the value it decoded to, byte for byte. Strings here are that form already (printable
  // ASCII, nothing escaped).
  bool take_compact() { return std::exchange(compact_, true); }
  const char* position() const { return at_; }

  bool at_end() {
    skip_space();
    return at_ == end_;
  }

  // Consumes `c` (after any space) when it is next.
  bool take(char c) {
    skip_space();
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }

  bool peek(char c) {
    skip_space();
    return at_ != end_ && *at_ == c;
  }

  // A string of printable ASCII without escapes; `out` views the input.
  bool string(std::string_view& out) {
    if (!take('"')) return false;
    const char* start = at_;
    while (at_ != end_) {
      const auto c = static_cast<unsigned char>(*at_);
      if (c == '"') {
        out = std::string_view(start, static_cast<std::size_t>(at_ - start));
        ++at_;
        return out.size() <= limits_.max_string_bytes;
      }
      // Escapes, control characters (invalid JSON) and non-ASCII (UTF-8 to check) are
      // for the general decoder.
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++at_;
    }
    return false;
  }

  // An integer number as nlohmann/json types it: unsigned when not negative, signed
  // otherwise. Fractions, exponents and numbers past 64 bits (which nlohmann makes
  // floating point) are not plain.
  bool integer(Json& out) {
    skip_space();
    const bool negative = at_ != end_ && *at_ == '-';
    if (negative) ++at_;
    if (at_ == end_ || *at_ < '0' || *at_ > '9') return false;
    if (*at_ == '0' && at_ + 1 != end_ && at_[1] >= '0' && at_[1] <= '9') return false;
    std::uint64_t value = 0;
    while (at_ != end_ && *at_ >= '0' && *at_ <= '9') {
      const auto digit = static_cast<std::uint64_t>(*at_ - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
      value = value * 10 + digit;
      ++at_;
    }
    if (at_ != end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) return false;
    if (!negative) {
      out = value;
      return true;
    }
    if (value == 0) compact_ = false;  // -0 is written 0
    constexpr auto kMostNegative =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
    if (value > kMostNegative) return false;
    out = value == kMostNegative ? std::numeric_limits<std::int64_t>::min()
                                 : -static_cast<std::int64_t>(value);
    return true;
  }

  bool literal(std::string_view word) {
    skip_space();
    if (static_cast<std::size_t>(end_ - at_) < word.size() ||
        std::string_view(at_, word.size()) != word) {
      return false;
    }
    at_ += word.size();
    return true;
  }

  // Any plain value; `depth` counts the containers open around it, the top level's included.
  bool value(Json& out, int depth) {
    skip_space();
    if (at_ == end_) return false;
    switch (*at_) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"': {
        std::string_view text;
        if (!string(text)) return false;
        out = std::string(text);
        return true;
      }
      case 't':
        out = true;
        return literal("true");
      case 'f':
        out = false;
        return literal("false");
      case 'n':
        out = nullptr;
        return literal("null");
      default:
        return integer(out);
    }
  }

 private:
  bool object(Json& out, int depth) {
    if (depth > limits_.max_depth || !take('{')) return false;
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    if (take('}')) return true;
    do {
      std::string_view key;
      if (!string(key) || !take(':')) return false;
      // A repeated key is valid JSON, but the general decoder's last-one-wins is its to apply.
      auto [slot, added] = members.try_emplace(std::string(key));
      if (!added || members.size() > limits_.max_keys_per_object) return false;
      if (std::next(slot) != members.end()) compact_ = false;  // written out of order
      if (!value(slot->second, depth)) return false;
    } while (take(','));
    return take('}');
  }

  bool array(Json& out, int depth) {
    if (depth > limits_.max_depth || !take('[')) return false;
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    if (take(']')) return true;
    items.reserve(8);  // one allocation for the usual list (of cards, of gems)
    do {
      if (!value(items.emplace_back(), depth)) return false;
    } while (take(','));
    return take(']');
  }

  const char* at_;
  const char* end_;
  const Limits& limits_;
  bool compact_ = true;
};

}  // namespace

std::optional<Request> decode_plain_move(std::string_view frame, const Limits& limits) {
  if (frame.size() > limits.max_frame_bytes) return std::nullopt;
  PlainReader in(frame, limits);
  if (!in.take('{')) return std::nullopt;
  bool has_type = false, has_id = false, has_room = false, has_seq = false, has_move = false;
  Json id;
  Move move;
  std::size_t keys = 0;
  do {
    std::string_view key;
    if (!in.string(key) || !in.take(':') || ++keys > limits.max_keys_per_object) {
      return std::nullopt;
    }
    if (key == "type" && !has_type) {
      std::string_view type;
      if (!in.string(type) || type != "move") return std::nullopt;
      has_type = true;
    } else if (key == "id" && !has_id) {
      // As read_id: an integer, or a string of at most max_identifier_bytes; null is absent.
      if (in.peek('"')) {
        std::string_view text;
        if (!in.string(text) || text.size() > limits.max_identifier_bytes) return std::nullopt;
        id = std::string(text);
      } else if (!in.literal("null") && !in.integer(id)) {
        return std::nullopt;
      }
      has_id = true;
    } else if (key == "room" && !has_room) {
      std::string_view room;
      if (!in.string(room) || room.empty() || room.size() > limits.max_identifier_bytes) {
        return std::nullopt;
      }
      move.room = std::string(room);
      has_room = true;
    } else if (key == "seq" && !has_seq) {
      // 0 .. 2^63-1, or null (absent).
      if (!in.literal("null")) {
        Json seq;
        if (!in.integer(seq) || !seq.is_number_unsigned() ||
            seq.get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          return std::nullopt;
        }
        move.seq = static_cast<std::int64_t>(seq.get<std::uint64_t>());
      }
      has_seq = true;
    } else if (key == "move" && !has_move) {
      if (!in.peek('{')) return std::nullopt;
      const char* start = in.position();
      in.take_compact();
      if (!in.value(move.move, 1)) return std::nullopt;
      if (in.take_compact()) {
        move.move_text = std::string_view(start, static_cast<std::size_t>(in.position() - start));
      }
      has_move = true;
    } else {
      return std::nullopt;  // another field, or one repeated
    }
  } while (in.take(','));
  if (!in.take('}') || !in.at_end() || !has_type || !has_room || !has_move) return std::nullopt;
  return Request{std::move(id), std::move(move)};
}

}  // namespace parlor::protocol
