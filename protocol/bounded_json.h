// A JSON parser for untrusted frames that enforces Limits while it parses.
//
// nlohmann's DOM parser builds whatever it is given, and 3.11.2 then recurses
// when that tree is copied or dumped: a 200 KB frame of "[[[[..." crashes the
// process. Here the frame size is checked before parsing, and depth, keys per
// object and string length are checked by a SAX handler as each event arrives,
// so parsing stops at the first value past a limit and nothing deeper than
// max_depth is ever built. The result is safe to copy, dump and destroy.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "games/core/game.h"
#include "protocol/limits.h"

namespace parlor::protocol {

struct JsonParseFailure {
  enum class Kind {
    kTooLarge,       // over max_frame_bytes; nothing was parsed
    kEmpty,          // nothing but whitespace
    kInvalidUtf8,    // the bytes are not UTF-8
    kSyntax,         // UTF-8, but not one JSON value
    kTooDeep,        // more than max_depth open objects/arrays
    kTooManyKeys,    // an object with more than max_keys_per_object keys
    kStringTooLong,  // a string or key over max_string_bytes
  };

  Kind kind = Kind::kSyntax;
  // For people: what is wrong and where, never quoting the input.
  std::string message;
  // What was built before parsing stopped; within every limit, so safe to inspect. Lets
  // the decoder echo a request id that came before the offending value.
  Json partial;
};

// Parses one complete JSON value (any type at the top level). Never throws a
// nlohmann exception; only std::bad_alloc can escape.
std::variant<Json, JsonParseFailure> parse_bounded_json(std::string_view text,
                                                        const Limits& limits);

}  // namespace parlor::protocol
