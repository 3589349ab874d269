// Writing JSON text directly, for the views and prompts the server sends on every move.
//
// Game::write_view / write_prompt produce exactly the bytes nlohmann's dump() would for the
// same value (compact, object keys in sorted order), without building a JSON tree first: the
// tree's allocations are most of a view's cost. Keys are written by the caller in sorted
// order; these helpers write the values.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "games/core/card.h"

namespace parlor::json_text {

// `"name":` — for the engine's own fixed key names (plain ASCII, nothing to escape).
inline void key(std::string& out, std::string_view name) {
  out += '"';
  out += name;
  out += "\":";
}

inline void integer(std::string& out, std::int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

inline void boolean(std::string& out, bool value) { out += value ? "true" : "false"; }

inline void null(std::string& out) { out += "null"; }

// A string, escaped the way dump() escapes it (quotes, backslashes, control characters);
// other bytes are copied, so it is only for valid UTF-8 (engine-made text always is).
void string(std::string& out, std::string_view text);

void card(std::string& out, Card card);

// A comma before every element but the first: `Separator comma; ... comma(out);`.
class Separator {
 public:
  void operator()(std::string& out) {
    if (!first_) out += ',';
    first_ = false;
  }

 private:
  bool first_ = true;
};

}  // namespace parlor::json_text
