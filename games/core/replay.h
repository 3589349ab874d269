// Rebuilding a game from its move log.
//
// A game is a deterministic function of (normalized options, seats, seed, accepted moves),
// so a stored log rebuilds it: crash recovery does, replays shown to players do, and the
// self-play checker does to test determinism. LogReplayer applies the logged moves one at
// a time and stops at the first one the engine refuses, or whose stored state hash
// (a checkpoint kept with the move) the rebuilt state does not reach: the engine that
// replays the log no longer plays the game it was recorded with, and nothing after that
// move can be trusted.
//
// Two ways to use it:
//  - replay_log(...) applies a whole log, calling an optional observer after each move
//    (for per-step events and views), and returns the game with the first break if any;
//  - a LogReplayer fed move by move, for callers whose log is in their own records (no
//    copy of each move into a ReplayMove).
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

// One entry of a move log: who moved, the move, and (when the log kept one) the state
// hash the game had right after it.
struct ReplayMove {
  Seat seat = 0;
  Json move;
  std::optional<std::uint64_t> state_hash;
};

// Why a log stopped replaying, at which entry.
struct ReplayBreak {
  enum class Kind {
    kRefused,         // the engine refused the move
    kDifferentState,  // the move was accepted but reached another state than the log's hash
  };
  Kind kind = Kind::kRefused;
  std::size_t index = 0;       // 0-based position of the move in the log
  std::string code;            // kRefused: the engine's error code
  std::string message;         // kRefused: the engine's message
  std::uint64_t expected = 0;  // kDifferentState: the hash stored with the move
  std::uint64_t reached = 0;   // kDifferentState: the hash the replay reached

  // "is refused (illegal_move)" or "reaches a different state".
  std::string what() const;
  // "stored move N is refused (code)" / "stored move N reaches a different state", N being
  // `number` (a caller's own numbering such as a room's seq), by default the log index.
  std::string describe(std::optional<std::int64_t> number = std::nullopt) const;
};

// What a replayed move did, for an observer: the move's place in the log, the seat, the
// move, the engine's result (events included) and the game right after it.
struct ReplayStep {
  std::size_t index = 0;
  Seat seat = 0;
  const Json& move;
  const MoveResult& result;
  const Game& game;
};

using ReplayObserver = std::function<void(const ReplayStep& step)>;

class LogReplayer {
 public:
  // Replays onto `game`, a game just created from the log's (options, seats, seed).
  explicit LogReplayer(std::unique_ptr<Game> game);
  // Creates the game with info.create: `options` must be normalized, as stored.
  LogReplayer(const GameInfo& info, const Json& options, int seats, std::uint64_t seed);

  // Applies the log's next move. Returns true when the engine accepted it and, if
  // `expected_hash` is given, the state hash after it equals it; otherwise records the
  // break (see broken()) and returns false. After a break every call returns false and
  // applies nothing: the game stays as it was after the last good move (for a state
  // mismatch, after the mismatching move itself, which the engine did accept).
  bool apply(Seat seat, const Json& move, std::optional<std::uint64_t> expected_hash = {},
             const ReplayObserver& observer = {});

  // The result of the last move apply() accepted (its events); null before any.
  const MoveResult* last_result() const { return last_ ? &*last_ : nullptr; }
  // Moves accepted and verified so far.
  std::size_t applied() const { return applied_; }
  const std::optional<ReplayBreak>& broken() const { return broken_; }
  const Game& game() const { return *game_; }
  // Hands the rebuilt game over; the replayer is then empty and must not be used again.
  std::unique_ptr<Game> release() { return std::move(game_); }

 private:
  std::unique_ptr<Game> game_;
  std::size_t applied_ = 0;
  std::optional<MoveResult> last_;
  std::optional<ReplayBreak> broken_;
};

struct ReplayOutcome {
  std::unique_ptr<Game> game;         // the rebuilt game (see LogReplayer::apply on breaks)
  std::size_t applied = 0;            // moves accepted and verified
  std::optional<ReplayBreak> broken;  // the first move that broke the replay, if any
  bool ok() const { return !broken; }
};

// Applies every move of `log` in order, stopping at the first break; `observer` (optional)
// is called after each move accepted and verified. An empty log gives the initial state.
ReplayOutcome replay_log(std::unique_ptr<Game> game, std::span<const ReplayMove> log,
                         const ReplayObserver& observer = {});
ReplayOutcome replay_log(const GameInfo& info, const Json& options, int seats, std::uint64_t seed,
                         std::span<const ReplayMove> log, const ReplayObserver& observer = {});

}  // namespace parlor
