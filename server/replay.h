// Replays: a stored game rebuilt step by step from (options, seed, moves), showing at
// each step exactly what one seat (or a spectator) saw then. Hidden information follows
// the live rules: another seat's moves appear only as their public events, and the full
// reveal (every hand at the deal, every move) comes only once the game has ended.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "games/core/game.h"
#include "protocol/error_code.h"
#include "protocol/replay.h"
#include "server/store/store.h"

namespace parlor::server {

// Why a replay is not given: the code a client gets (HTTP: protocol::http_status of it).
struct ReplayRefusal {
  protocol::ErrorCode code = protocol::ErrorCode::kBadRequest;
  std::string message;
};
using ReplayOutcome = std::variant<protocol::Replay, ReplayRefusal>;

// Game `record` of `history` as `as` saw it (nullopt: the spectator view), or a refusal when
// the engine no longer replays it.
ReplayOutcome build_replay(const RoomHistory& history, const GameRecord& record,
                           std::optional<Seat> as);
// The same, replayed onto `game`: the game the record's (options, seats, seed) create, or
// for tests one dealt otherwise (the non-interference test compares replays of deals that
// differ only in what the viewer cannot see).
ReplayOutcome build_replay(const RoomHistory& history, const GameRecord& record,
                           std::optional<Seat> as, std::unique_ptr<Game> game);

// The game `number` of a room history (nullopt: the latest), or null.
const GameRecord* find_replay_game(const RoomHistory& history, std::optional<int> number);

}  // namespace parlor::server
