// list_rooms' filters and pages, over room summaries in their wire form ({"type":"room",...}),
// so the same code serves a single server's rooms and a cluster's (other nodes' rooms
// arrive from Redis already in wire form).
#pragma once

#include <vector>

#include "games/core/game.h"
#include "protocol/commands.h"

namespace parlor::server {

// Whether `summary` passes the query's filters (kind, status, a free seat).
bool room_matches(const Json& summary, const protocol::ListRooms& query);

// The `rooms` reply (without `re`): the rooms that pass the filters, in the order of their
// ids, from just after the cursor `after`, at most `limit` of them; `next` (the cursor for
// the following page) is there when more rooms follow.
Json rooms_page(std::vector<Json> rooms, const protocol::ListRooms& query);

}  // namespace parlor::server
