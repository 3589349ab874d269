#include "bots/load/frame_scan.h"

#include <array>
#include <charconv>

namespace parlor::load {
namespace {

// One bit per open bracket below the value being stepped over; the server's frames are a few
// levels deep, and anything deeper goes to the full parser.
constexpr int kMaxDepth = 64;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_delimiter(char c) { return c == ',' || c == '}' || c == ']' || is_space(c); }
// The character after a backslash in a string (\u's four hex digits are left unchecked).
bool is_escape(char c) {
  return std::string_view(R"("\/bfnrtu)").find(c) != std::string_view::npos;
}

// Byte tables for the two loops that see nearly every byte of a frame, so that the common
// byte costs one lookup: inside a string, and between the strings of a nested value.
enum class Byte : std::uint8_t { kPlain, kQuote, kBackslash, kControl, kOpen, kClose };

constexpr std::array<Byte, 256> kInString = [] {
  std::array<Byte, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = Byte::kControl;
  table['"'] = Byte::kQuote;
  table['\\'] = Byte::kBackslash;
  return table;
}();

constexpr std::array<Byte, 256> kInNested = [] {
  std::array<Byte, 256> table{};
  table['"'] = Byte::kQuote;
  table['{'] = table['['] = Byte::kOpen;
  table['}'] = table[']'] = Byte::kClose;
  return table;
}();

Byte in_string(char c) { return kInString[static_cast<unsigned char>(c)]; }
Byte in_nested(char c) { return kInNested[static_cast<unsigned char>(c)]; }

class Scanner {
 public:
  explicit Scanner(std::string_view text) : at_(text.data()), end_(text.data() + text.size()) {}

  std::optional<FrameFields> frame() {
    FrameFields fields;
    skip_space();
    if (!take('{')) return std::nullopt;
    skip_space();
    if (!take('}')) {
      do {
        skip_space();
        std::string_view key;
        if (!plain_string(key)) return std::nullopt;
        skip_space();
        if (!take(':')) return std::nullopt;
        skip_space();
        if (!member(key, fields)) return std::nullopt;
        skip_space();
      } while (take(','));
      if (!take('}')) return std::nullopt;
    }
    skip_space();
    if (at_ != end_) return std::nullopt;
    return fields;
  }

 private:
  // The value of top-level member `key`, at_ on its first character.
  bool member(std::string_view key, FrameFields& fields) {
    if (key == "type") {
      if (seen_type_) return false;
      seen_type_ = true;
      return plain_string(fields.type);
    }
    if (key == "seq") {
      std::int64_t seq = 0;
      if (fields.seq || !integer(seq)) return false;
      fields.seq = seq;
      return true;
    }
    if (key == "code") {
      std::string_view code;
      if (fields.code || !plain_string(code)) return false;
      fields.code = code;
      return true;
    }
    if (key == "prompt") {
      if (seen_prompt_) return false;
      seen_prompt_ = true;
      const char* begin = at_;
      if (!value()) return false;
      const std::string_view prompt(begin, static_cast<std::size_t>(at_ - begin));
      if (prompt != "null") fields.prompt = prompt;
      return true;
    }
    return value();
  }

  void skip_space() {
    while (at_ != end_ && is_space(*at_)) ++at_;
  }

  bool take(char c) {
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }

  // A string at at_; `escaped` tells whether its text holds an escape, i.e. differs from its
  // value.
  bool string(std::string_view& text, bool& escaped) {
    if (!take('"')) return false;
    const char* begin = at_;
    escaped = false;
    while (at_ != end_) {
      switch (in_string(*at_)) {
        case Byte::kQuote:
          text = std::string_view(begin, static_cast<std::size_t>(at_ - begin));
          ++at_;
          return true;
        case Byte::kControl:
          return false;  // control characters must be escaped
        case Byte::kBackslash:
          escaped = true;
          if (++at_ == end_ || !is_escape(*at_)) return false;
          break;
        default:
          break;
      }
      ++at_;
    }
    return false;
  }

  bool plain_string(std::string_view& text) {
    bool escaped = false;
    return string(text, escaped) && !escaped;
  }

  bool integer(std::int64_t& value) {
    const char* digits = at_ != end_ && *at_ == '-' ? at_ + 1 : at_;
    // JSON has no leading zeros, which from_chars would accept.
    if (digits + 1 < end_ && digits[0] == '0' && is_digit(digits[1])) return false;
    const auto [next, error] = std::from_chars(at_, end_, value);
    if (error != std::errc{}) return false;
    at_ = next;
    // A fraction or an exponent makes it a number for the full parser to judge.
    return at_ == end_ || is_delimiter(*at_);
  }

  // true, false, null or something shaped like a number.
  bool scalar() {
    const char* begin = at_;
    while (at_ != end_ && !is_delimiter(*at_)) ++at_;
    const std::string_view token(begin, static_cast<std::size_t>(at_ - begin));
    if (token == "true" || token == "false" || token == "null") return true;
    if (token.empty() || (token[0] != '-' && !is_digit(token[0]))) return false;
    for (const char c : token) {
      if (!is_digit(c) && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E') return false;
    }
    return true;
  }

  // Steps over any value; inside arrays and objects only strings and brackets are looked at.
  bool value() {
    if (at_ == end_) return false;
    std::string_view ignored;
    bool escaped = false;
    if (*at_ == '"') return string(ignored, escaped);
    if (*at_ != '{' && *at_ != '[') return scalar();
    std::uint64_t open_objects = 0;  // bit 0 is the innermost bracket: 1 for '{', 0 for '['
    int depth = 0;
    while (at_ != end_) {
      const char c = *at_;
      switch (in_nested(c)) {
        case Byte::kQuote:
          if (!string(ignored, escaped)) return false;
          continue;
        case Byte::kOpen:
          if (depth == kMaxDepth) return false;
          open_objects = (open_objects << 1) | (c == '{' ? 1U : 0U);
          ++depth;
          break;
        case Byte::kClose:
          if (((open_objects & 1U) != 0) != (c == '}')) return false;
          open_objects >>= 1;
          if (--depth == 0) {
            ++at_;
            return true;
          }
          break;
        default:
          break;
      }
      ++at_;
    }
    return false;
  }

  const char* at_;
  const char* end_;
  bool seen_type_ = false;
  bool seen_prompt_ = false;
};

}  // namespace

std::optional<FrameFields> scan_frame(std::string_view text) { return Scanner(text).frame(); }

}  // namespace parlor::load
