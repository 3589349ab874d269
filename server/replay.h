// Replays: a stored game rebuilt step by step from (options, seed, moves), showing at
// each step exactly what one seat (or a spectator) saw then. Hidden information follows
// the live rules: another seat's moves appear only as their public events, and the full
// reveal (every hand at the deal, every move) comes only once the game has ended.
#pragma once

#include <optional>

#include "games/core/game.h"
#include "server/store/store.h"

namespace parlor::server {

// {"type":"replay","room","kind","game","as","finished","steps":[...],"result","reveal"}.
// `as`: a seat, or nullopt for the spectator view. Null when the game cannot be rebuilt.
Json build_replay(const RoomHistory& history, const GameRecord& game, std::optional<Seat> as);

// The game `number` of a room history (nullopt: the latest), or null.
const GameRecord* find_replay_game(const RoomHistory& history, std::optional<int> number);

}  // namespace parlor::server
