// The SQLite store's writes as its redo log keeps them (redo_log.h): each a tag byte, then its
// fields in a fixed order — integers as LEB128 varints (signed ones zigzagged), text as a length
// and its bytes, JSON as its compact text. A frame's payload is its batch's writes one after
// another; decoding gives them back exactly, for replay after a power loss.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "server/store/store.h"

namespace parlor::server {

// Store::prune_ended_rooms and Store::prune_idle_players, as writes in the queue.
struct PruneRoomsBefore {
  UnixMillis before_ms = 0;
};
struct PrunePlayersBefore {
  UnixMillis before_ms = 0;
};

using StoredWrite = std::variant<PlayerRecord, RoomRecord, MoveRecord, PruneRoomsBefore,
                                 RatedGameRecord, PrunePlayersBefore>;

// Appends the write's encoding to `out`.
void encode_write(const StoredWrite& write, std::string& out);
void encode_write(const PlayerRecord& player, std::string& out);
void encode_write(const RoomRecord& room, std::string& out);
void encode_write(const MoveRecord& move, std::string& out);
// The same, with move.move already dumped as compact JSON text (the store uses that text twice).
void encode_write(const MoveRecord& move, std::string_view move_text, std::string& out);
void encode_write(const PruneRoomsBefore& prune, std::string& out);
void encode_write(const RatedGameRecord& game, std::string& out);
void encode_write(const PrunePlayersBefore& prune, std::string& out);
// A room's occupants as a room record's encoding holds them: equal strings for equal
// occupants, and a few dozen bytes where the records take a few hundred.
std::string encode_occupants(const std::vector<std::optional<SeatRecord>>& occupants);
// The writes encoded one after another in `payload`. Throws StoreError on anything that is not
// a whole, valid encoding.
std::vector<StoredWrite> decode_writes(std::string_view payload);

}  // namespace parlor::server
