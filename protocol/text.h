// Checks for untrusted text: UTF-8 validity, trimming, control characters and
// truncation that never splits a character. Used for names and chat, and for
// the fragments of client input that error messages quote back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace parlor::protocol {

// Byte offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or npos when all of it is.
std::size_t find_invalid_utf8(std::string_view text);
inline bool is_valid_utf8(std::string_view text) {
  return find_invalid_utf8(text) == std::string_view::npos;
}

// Without leading and trailing ASCII whitespace.
std::string_view trim_ascii_whitespace(std::string_view text);

// True when valid UTF-8 `text` holds a character that has no business in a name or a
// chat line: C0 controls (except those in `allowed`), DEL, C1 controls, and the
// invisible direction overrides and separators (U+200E/F, U+2028/9, U+202A-E,
// U+2066-9) that let one player make text appear reversed or hidden to others.
bool has_control_characters(std::string_view text, std::string_view allowed = {});

// At most `max_bytes` bytes of valid UTF-8 `text`, cut at a character boundary (for fields with
// a byte limit, such as a WebSocket close reason).
std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes);

// Client text quoted back in a message or a log line, the one way Parlor does it: in double
// quotes, at most `max_bytes` bytes of `text` cut at a character boundary (never inside a
// UTF-8 sequence), with "..." appended when anything was cut. Invalid UTF-8 bytes and
// control characters become '?', so the result is always safe to send and to log.
std::string quote_client_text(std::string_view text, std::size_t max_bytes = 64);

}  // namespace parlor::protocol
