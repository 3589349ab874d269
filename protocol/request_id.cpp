#include "protocol/request_id.h"

namespace parlor::protocol {
namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool at(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  // A string token, quotes included, or empty when there is none.
  std::string_view string_token() {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '"') return {};
    const std::size_t start = pos_++;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '\\') {
        ++pos_;
      } else if (c == '"') {
        return text_.substr(start, pos_ - start);
      }
    }
    return {};
  }
  // Skips one value of any kind (strings, nested containers); false on malformed text.
  bool skip_value() {
    skip_space();
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        if (string_token().empty()) return false;
      } else if (c == '{' || c == '[') {
        ++depth;
        ++pos_;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return true;  // the end of the enclosing object
        --depth;
        ++pos_;
      } else if (c == ',' && depth == 0) {
        return true;
      } else {
        ++pos_;
      }
      if (depth == 0 && (c == '"' || c == '}' || c == ']')) return true;
    }
    return depth == 0;
  }
  // A scalar token: everything up to the next delimiter.
  std::string_view scalar_token() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ' ' &&
           text_[pos_] != '\t' && text_[pos_] != '\n' && text_[pos_] != '\r') {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// The value of a token that is a JSON string or number, else null.
Json scalar(std::string_view token) {
  if (token.empty()) return nullptr;
  Json value = Json::parse(token, nullptr, /*allow_exceptions=*/false);
  if (value.is_string() || value.is_number()) return value;
  return nullptr;
}

}  // namespace

Json peek_request_id(std::string_view frame) {
  Scanner scan(frame);
  if (!scan.take('{')) return nullptr;
  if (scan.take('}')) return nullptr;
  while (true) {
    const std::string_view key = scan.string_token();
    if (key.empty() || !scan.take(':')) return nullptr;
    // A key written with escapes ("\u0069d") is still "id".
    const bool is_id = key.find('\\') == std::string_view::npos
                           ? key == R"("id")"
                           : Json::parse(key, nullptr, false) == "id";
    if (is_id) {
      return scan.at('"') ? scalar(scan.string_token()) : scalar(scan.scalar_token());
    }
    if (!scan.skip_value()) return nullptr;
    if (!scan.take(',')) return nullptr;
  }
}

}  // namespace parlor::protocol
