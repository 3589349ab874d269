#include "protocol/request_id.h"

#include <cstddef>
#include <vector>

namespace parlor::protocol {

namespace {

class Scanner {
 public:
  Scanner(std::string_view text, const Limits& limits) : text_(text), limits_(limits) {}

  Json run() {
    skip_space();
    if (!at('{')) return nullptr;
    Json id;
    // The top-level object is read here; every member value other than the first "id" is
    // skipped by skip_value, which tracks nesting with a counter rather than recursion.
    ++pos_;
    skip_space();
    if (at('}')) {
      ++pos_;
    } else {
      for (;;) {
        skip_space();
        const std::size_t key_start = pos_;
        if (!skip_string()) return nullptr;
        const std::string_view key = text_.substr(key_start, pos_ - key_start);
        skip_space();
        if (!at(':')) return nullptr;
        ++pos_;
        skip_space();
        const std::size_t value_start = pos_;
        if (!skip_value()) return nullptr;
        // Like the decoder's JSON tree, a later duplicate "id" replaces an earlier one.
        if (is_id_key(key)) id = read_id(text_.substr(value_start, pos_ - value_start));
        skip_space();
        if (at(',')) {
          ++pos_;
          continue;
        }
        if (!at('}')) return nullptr;
        ++pos_;
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) return nullptr;  // trailing bytes: not one JSON value
    return id;
  }

 private:
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  // A JSON string starting at pos_ (the opening quote); leaves pos_ after the closing one.
  bool skip_string() {
    if (!at('"')) return false;
    ++pos_;
    while (pos_ < text_.size()) {
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;  // control characters must be escaped
      if (c != '\\') {
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= text_.size()) return false;
      const char e = text_[pos_ + 1];
      if (e == 'u') {
        if (pos_ + 6 > text_.size()) return false;
        for (std::size_t i = 2; i < 6; ++i)
          if (!is_hex(text_[pos_ + i])) return false;
        pos_ += 6;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                 e == 'r' || e == 't') {
        pos_ += 2;
      } else {
        return false;
      }
    }
    return false;
  }

  bool skip_digits() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }

  bool skip_number() {
    if (at('-')) ++pos_;
    if (at('0')) {
      ++pos_;
    } else if (!skip_digits()) {
      return false;
    }
    if (at('.')) {
      ++pos_;
      if (!skip_digits()) return false;
    }
    if (at('e') || at('E')) {
      ++pos_;
      if (at('+') || at('-')) ++pos_;
      if (!skip_digits()) return false;
    }
    return true;
  }

  bool skip_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // One value of any kind at pos_. Containers are walked with an explicit stack of what is
  // open (one byte each, at most max_depth - 1 under the top-level object).
  bool skip_value() {
    std::vector<char> open;
    for (;;) {
      skip_space();
      if (pos_ >= text_.size()) return false;
      const char c = text_[pos_];
      bool scalar = true;
      if (c == '{' || c == '[') {
        if (static_cast<int>(open.size()) + 2 > limits_.max_depth) return false;
        open.push_back(c);
        ++pos_;
        skip_space();
        if (at(c == '{' ? '}' : ']')) {
          ++pos_;
          open.pop_back();
        } else {
          scalar = false;
          if (c == '{' && !skip_key()) return false;
        }
      } else if (c == '"') {
        if (!skip_string()) return false;
      } else if (c == 't') {
        if (!skip_literal("true")) return false;
      } else if (c == 'f') {
        if (!skip_literal("false")) return false;
      } else if (c == 'n') {
        if (!skip_literal("null")) return false;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!skip_number()) return false;
      } else {
        return false;
      }
      if (!scalar) continue;  // the first member or element of a new container follows
      // After a value: close containers or move to the next member or element.
      for (;;) {
        if (open.empty()) return true;
        skip_space();
        const char close = open.back() == '{' ? '}' : ']';
        if (at(close)) {
          ++pos_;
          open.pop_back();
          continue;
        }
        if (!at(',')) return false;
        ++pos_;
        if (open.back() == '{' && !skip_key()) return false;
        break;
      }
    }
  }

  // `"key":` inside a nested object.
  bool skip_key() {
    skip_space();
    if (!skip_string()) return false;
    skip_space();
    if (!at(':')) return false;
    ++pos_;
    return true;
  }

  // The raw key (quotes included) names "id", written plainly or with escapes.
  static bool is_id_key(std::string_view raw) {
    if (raw == "\"id\"") return true;
    if (raw.find('\\') == std::string_view::npos || raw.size() > 16) return false;
    const Json key = Json::parse(raw, nullptr, false);
    return key.is_string() && key.get_ref<const std::string&>() == "id";
  }

  // The id's value as decode_request accepts it, else null. The raw text is already known
  // to be one well-formed JSON value; only short ones are worth parsing.
  Json read_id(std::string_view raw) const {
    if (raw.empty() || raw.front() == '{' || raw.front() == '[') return nullptr;
    // A string of max_identifier_bytes takes at most 6 escaped bytes per byte, plus quotes.
    if (raw.size() > limits_.max_identifier_bytes * 6 + 2) return nullptr;
    Json value = Json::parse(raw, nullptr, false);
    if (value.is_number_integer()) return value;
    if (value.is_string() &&
        value.get_ref<const std::string&>().size() <= limits_.max_identifier_bytes)
      return value;
    return nullptr;
  }

  std::string_view text_;
  const Limits& limits_;
  std::size_t pos_ = 0;
};

}  // namespace

Json scan_request_id(std::string_view frame, const Limits& limits) {
  if (frame.size() > limits.max_frame_bytes) return nullptr;
  return Scanner(frame, limits).run();
}

}  // namespace parlor::protocol
