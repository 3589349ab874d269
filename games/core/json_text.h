// Writing JSON text directly, for the views and prompts the server sends on every move.
//
// Game::write_view / write_prompt produce exactly the bytes nlohmann's dump() would for the
// same value (compact, object keys in sorted order), without building a JSON tree first: the
// tree's allocations are most of a view's cost. Keys are written by the caller in sorted
// order; these helpers write the values.
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "games/core/card.h"
#include "games/core/card_set.h"

namespace parlor::json_text {

// `"name":` — for the engine's own fixed key names (plain ASCII, nothing to escape), in one
// append: views are mostly keys.
template <std::size_t N>
inline void key(std::string& out, const char (&name)[N]) {
  char text[N + 2];
  text[0] = '"';
  std::memcpy(text + 1, name, N - 1);
  text[N] = '"';
  text[N + 1] = ':';
  out.append(text, N + 2);
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

// Any JSON value, appended byte for byte as its dump() would write it: without dump()'s
// string and serializer, so the durable store writes each move's text into a buffer it
// reuses. A floating-point number, and a string with bytes beyond ASCII, are written by
// dump() itself: its shortest round-trip number format is not repeated here, and it refuses
// invalid UTF-8 (type_error 316) rather than write it.
void value(std::string& out, const nlohmann::json& value);

namespace detail {
// Every card's two wire characters, by index ("2C" … "AS", "LJ", "BJ").
inline constexpr auto kCardText = [] {
  constexpr char kRanks[] = "23456789TJQKA";
  constexpr char kSuits[] = "CDHS";
  std::array<std::array<char, 2>, Card::kIndexCount> text{};
  for (int i = 0; i < Card::kIndexCount; ++i) {
    const Card c = Card::from_index(i);
    text[static_cast<std::size_t>(i)] =
        c.is_joker() ? std::array<char, 2>{c == Card::little_joker() ? 'L' : 'B', 'J'}
                     : std::array<char, 2>{kRanks[static_cast<int>(c.rank()) - 2],
                                           kSuits[static_cast<int>(c.suit())]};
  }
  return text;
}();
}  // namespace detail

inline void card(std::string& out, Card card) {
  const auto& name = detail::kCardText[static_cast<std::size_t>(card.index())];
  const char text[4] = {'"', name[0], name[1], '"'};
  out.append(text, sizeof text);
}

// Cards in index order, as cards_to_json(CardSet) makes them: ["2C","3C",...].
inline void cards(std::string& out, CardSet set) {
  out += '[';
  bool first = true;
  for (Card c : set) {
    if (!first) out += ',';
    first = false;
    card(out, c);
  }
  out += ']';
}

// An array of integers: [1,2,3].
template <class Range>
inline void integers(std::string& out, const Range& values) {
  out += '[';
  bool first = true;
  for (const auto value : values) {
    if (!first) out += ',';
    first = false;
    integer(out, static_cast<std::int64_t>(value));
  }
  out += ']';
}

// An integer, or null when there is none (a seat to act in a finished game, a spectator's seat).
inline void integer_or_null(std::string& out, bool present, std::int64_t value) {
  if (present) {
    integer(out, value);
  } else {
    null(out);
  }
}

// How every engine's written view ends: its last key, ,"you":SEAT (null for a spectator), and
// the closing brace.
inline void view_you_and_close(std::string& out, bool seated, std::int64_t seat) {
  out += ',';
  key(out, "you");
  integer_or_null(out, seated, seat);
  out += '}';
}

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
