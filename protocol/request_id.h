// The `id` of a request read without parsing the request: for replies to frames the server
// does not decode at all (a request dropped by the rate limit), which still carry `re`.
//
// One pass over the frame with no tree and no allocation beyond the id itself: the frame
// must be one well-formed JSON object (nesting bounded by Limits::max_depth), and only its
// top-level "id" member counts (the last one, as in the decoder's tree); an "id" inside a nested
// object or inside a string is skipped.
#pragma once

#include <string_view>

#include "games/core/game.h"
#include "protocol/limits.h"

namespace parlor::protocol {

// The top-level id (an integer, or a string of at most max_identifier_bytes after
// unescaping), as decode_request would echo it; null when the frame is not a well-formed
// JSON object, nests deeper than the limit, has no id, or has an id of another kind.
Json scan_request_id(std::string_view frame, const Limits& limits = {});

}  // namespace parlor::protocol
