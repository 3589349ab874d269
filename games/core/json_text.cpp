#include "games/core/json_text.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace parlor::json_text {

void string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  // Runs of bytes that need no escape (nearly all of them) are copied in one append.
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte != '"' && byte != '\\') continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (byte) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        const char escape[6] = {'\\', 'u', '0', '0', kHex[byte >> 4], kHex[byte & 0xF]};
        out.append(escape, sizeof escape);
      }
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

namespace {
// A string of any text: beyond ASCII, dump() checks that it is UTF-8 as it writes it.
void any_string(std::string& out, const std::string& text) {
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
    out += nlohmann::json(text).dump();
  } else {
    string(out, text);
  }
}
}  // namespace

void value(std::string& out, const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::null:
      null(out);
      return;
    case Type::boolean:
      boolean(out, value.get<bool>());
      return;
    case Type::number_integer:
      integer(out, value.get<std::int64_t>());
      return;
    case Type::number_unsigned: {
      char digits[24];
      const auto end =
          std::to_chars(digits, digits + sizeof digits, value.get<std::uint64_t>()).ptr;
      out.append(digits, end);
      return;
    }
    case Type::string:
      any_string(out, value.get_ref<const std::string&>());
      return;
    // The containers walked directly rather than through basic_json's iterators, which
    // check the value's type on every step: a durable move's text is written per move.
    case Type::array: {
      out += '[';
      Separator comma;
      for (const auto& item : value.get_ref<const nlohmann::json::array_t&>()) {
        comma(out);
        json_text::value(out, item);
      }
      out += ']';
      return;
    }
    case Type::object: {
      out += '{';
      Separator comma;
      for (const auto& [name, item] : value.get_ref<const nlohmann::json::object_t&>()) {
        comma(out);
        any_string(out, name);
        out += ':';
        json_text::value(out, item);
      }
      out += '}';
      return;
    }
    default:  // floating-point numbers, binary values, a discarded value
      out += value.dump();
      return;
  }
}

}  // namespace parlor::json_text
