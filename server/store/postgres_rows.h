// Reading the store's records out of PostgreSQL result rows: shared by the store's loads and
// by the cluster's reads of one room (postgres_cluster.h). The column lists and the readers
// go together: a reader expects the columns of its list, in that order.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/store/pg_conn.h"
#include "server/store/store.h"

namespace parlor::server::pg {

std::string_view status_name(StoredRoomStatus status);
std::optional<StoredRoomStatus> parse_status(std::string_view name);

// A room with its current game's seed and start: read_room() reads a row of it.
inline constexpr std::string_view kRoomColumns =
    "SELECT r.id, r.kind, r.seats, r.game_options, r.room_options, r.creator_id, r.status,"
    " r.game_number, r.created_ms, r.finished_ms, g.seed, g.start_seq, g.started_ms, r.epoch,"
    " r.owner FROM rooms r LEFT JOIN games g ON g.room_id = r.id AND g.game_number = "
    "r.game_number";
inline constexpr std::string_view kUnfinished = "r.status IN ('waiting', 'playing')";
// Seats, for read_seat().
inline constexpr std::string_view kSeatColumns = "s.room_id, s.seat, s.player_id, s.name, s.bot";
// Moves, for read_move().
inline constexpr std::string_view kMoveColumns =
    "m.room_id, m.game_number, m.seq, m.seat, m.move, m.at_ms, m.state_hash, m.epoch";
// Players, for read_player().
inline constexpr std::string_view kPlayerColumns =
    "p.id, p.name, encode(p.token_hash, 'hex'), p.created_ms, p.last_seen_ms";

RoomRecord read_room(const Result& rows, int row);
// Fills in the seat of `room` a row of kSeatColumns describes.
void read_seat(const Result& rows, int row, RoomRecord& room);
MoveRecord read_move(const Result& rows, int row);
PlayerRecord read_player(const Result& rows, int row);

// The hex form of a token hash, as the bytea's decode($n, 'hex') parameter.
std::string hex(const TokenHash& hash);

}  // namespace parlor::server::pg
