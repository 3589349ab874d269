#include "protocol/text.h"

#include <algorithm>
#include <cstdint>

namespace parlor::protocol {
namespace {

// Length of the well-formed UTF-8 sequence starting at text[i], or 0 when it is not one.
// The table of valid second bytes follows RFC 3629 section 4.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;   // overlong
    if (b0 == 0xED) high = 0x9F;  // UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;   // overlong
    if (b0 == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // continuation byte, overlong C0/C1 lead, or F5..FF
  }
  if (text.size() - i < length) return 0;
  const unsigned char b1 = byte(i + 1);
  if (b1 < low || b1 > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

// The code point of the valid sequence of `length` bytes at text[i].
std::uint32_t decode_at(std::string_view text, std::size_t i, std::size_t length) {
  const auto byte = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(text[k]));
  };
  switch (length) {
    case 1:
      return byte(i);
    case 2:
      return ((byte(i) & 0x1Fu) << 6) | (byte(i + 1) & 0x3Fu);
    case 3:
      return ((byte(i) & 0x0Fu) << 12) | ((byte(i + 1) & 0x3Fu) << 6) | (byte(i + 2) & 0x3Fu);
    default:
      return ((byte(i) & 0x07u) << 18) | ((byte(i + 1) & 0x3Fu) << 12) |
             ((byte(i + 2) & 0x3Fu) << 6) | (byte(i + 3) & 0x3Fu);
  }
}

bool is_control(std::uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x200E || cp == 0x200F || cp == 0x2028 ||
         cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

bool is_ascii_whitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string_view trim_ascii_whitespace(std::string_view text) {
  while (!text.empty() && is_ascii_whitespace(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_ascii_whitespace(text.back())) text.remove_suffix(1);
  return text;
}

bool has_control_characters(std::string_view text, std::string_view allowed) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return true;  // not text at all; callers check validity first anyway
    const std::uint32_t cp = decode_at(text, i, length);
    if (is_control(cp) &&
        !(cp < 0x80 && allowed.find(static_cast<char>(cp)) != std::string_view::npos)) {
      return true;
    }
    i += length;
  }
  return false;
}

std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes) {
  std::size_t end = 0;
  while (end < text.size()) {
    const std::size_t length = std::max<std::size_t>(1, utf8_sequence_length(text, end));
    if (end + length > max_bytes) break;
    end += length;
  }
  return text.substr(0, end);
}

std::string quote_client_text(std::string_view text, std::size_t max_bytes) {
  std::string out = "\"";
  out.reserve(2 + (text.size() < max_bytes ? text.size() : max_bytes + 3));
  max_bytes += 1;  // the opening quote
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t length = utf8_sequence_length(text, i);
    const bool keep = length != 0 && !is_control(decode_at(text, i, length));
    if (length == 0) length = 1;
    const std::size_t out_length = keep ? length : 1;
    if (out.size() + out_length > max_bytes) {
      out += "...\"";
      return out;
    }
    if (keep) {
      out.append(text.substr(i, length));
    } else {
      out += '?';
    }
    i += length;
  }
  out += '"';
  return out;
}

}  // namespace parlor::protocol
