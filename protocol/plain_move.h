// The decoding of the one message a table sends over and over: a `move` written plainly.
//
// decode_request builds a generic JSON tree of the whole frame and reads the fields out
// of it; for a move that is most of the protocol's work per move. Here a move frame in
// the plain form every client writes (the fields type, id, room, seq and move, each once;
// ASCII strings without escapes; integer numbers) is read in one pass, only the `move`
// value becoming a JSON tree. Any frame outside that form — another type, an unknown or
// repeated field, an escape, a fraction, a value out of range, a limit reached — gets
// nullopt, and decode_request decodes it the general way, which also words every refusal.
// A frame this accepts decodes to exactly what the general way gives (plain_move_test).
#pragma once

#include <optional>
#include <string_view>

#include "protocol/commands.h"
#include "protocol/limits.h"

namespace parlor::protocol {

std::optional<Request> decode_plain_move(std::string_view frame, const Limits& limits);

}  // namespace parlor::protocol
