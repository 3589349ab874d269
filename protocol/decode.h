// Turns one WebSocket text frame into a typed Request, or into the error the
// client gets back. Every check a client can fail happens here, with a message
// that names the field; see limits.h for the bounds and bounded_json.h for why
// they are enforced during parsing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "games/core/game.h"
#include "protocol/commands.h"
#include "protocol/error_code.h"
#include "protocol/limits.h"

namespace parlor::protocol {

struct DecodeError {
  ErrorCode code = ErrorCode::kBadRequest;
  std::string message;  // for people; quotes client input only truncated and sanitized
  // The request's id when it could be read (a valid id seen before the problem), else null.
  // The reply carries it as `re`. Frames that are not JSON objects never have one.
  Json id;
};

using DecodeResult = std::variant<Request, DecodeError>;

// Decodes one frame. Never throws anything but std::bad_alloc. Unknown fields are
// ignored (newer clients may send more); a field sent as null counts as absent.
// A plain `move` frame takes a one-pass path (plain_move.h); everything else, and every
// refusal, goes through decode_request_general.
DecodeResult decode_request(std::string_view frame, const Limits& limits = {});

// The general way for any frame: a bounded JSON tree of it, then the typed fields.
DecodeResult decode_request_general(std::string_view frame, const Limits& limits = {});

// A player name as the server keeps it: ASCII whitespace trimmed, then 1..max_name_bytes
// of valid UTF-8 without control characters. On failure returns nullopt and says why
// in `error`. Exposed for names that do not come from hello (bots, config).
std::optional<std::string> normalize_name(std::string_view raw, const Limits& limits,
                                          std::string& error);

}  // namespace parlor::protocol
