// Rebuilding a game from its log: (options, seats, seed) and the accepted moves in order.
// Games are deterministic, so the same log always reaches the same state; a log that an
// engine no longer accepts, or that reaches a state other than the one recorded, is broken
// and says where. Recovery (a room rebuilt after a restart), replays (a game shown step by
// step) and the self-play checker all replay through here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "games/core/game.h"
#include "games/core/game_info.h"

namespace parlor {

// One move of a log. `move` points into the caller's log, which outlives the replay.
struct LoggedMove {
  Seat seat = 0;
  const Json* move = nullptr;
  // Game::state_hash() recorded after this move, where the log kept a checkpoint.
  std::optional<std::uint64_t> state_hash;
};

// Where and why a log stopped replaying.
struct ReplayBreak {
  std::size_t index = 0;  // of the move in the log
  std::string why;        // "is refused (CODE)" or "reaches a different state"
};

// Called after each move is applied, with its index in the log and the engine's result.
using ReplayStepObserver = std::function<void(std::size_t index, const MoveResult& result)>;

// Applies `log` to `game` in order, checking each recorded state hash. Stops at the first
// broken move and says which: the moves before it replayed intact.
std::optional<ReplayBreak> replay_log(Game& game, std::span<const LoggedMove> log,
                                      const ReplayStepObserver& on_step = {});

}  // namespace parlor
