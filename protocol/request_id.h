// The `id` of a request without decoding it: for the replies a server gives before (or
// instead of) a full decode, such as a rate-limited request dropped unread, which must still
// carry `re` so the client knows which request it was.
#pragma once

#include <string_view>

#include "games/core/game.h"

namespace parlor::protocol {

// The top-level "id" member of the JSON object in `frame` when it is a string or a number,
// else null (no id, another type, or text that is not a JSON object). One pass over the
// frame, no tree built; members nested in other values are skipped, never mistaken for it.
Json peek_request_id(std::string_view frame);

}  // namespace parlor::protocol
