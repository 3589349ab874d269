#include "games/core/replay.h"

#include <utility>

namespace parlor {

std::string ReplayBreak::what() const {
  if (kind == Kind::kRefused) return "is refused (" + code + ")";
  return "reaches a different state";
}

std::string ReplayBreak::describe(std::optional<std::int64_t> number) const {
  const std::int64_t shown = number.value_or(static_cast<std::int64_t>(index));
  return "stored move " + std::to_string(shown) + " " + what();
}

LogReplayer::LogReplayer(std::unique_ptr<Game> game) : game_(std::move(game)) {}

LogReplayer::LogReplayer(const GameInfo& info, const Json& options, int seats, std::uint64_t seed)
    : game_(info.create(options, seats, seed)) {}

bool LogReplayer::apply(Seat seat, const Json& move, std::optional<std::uint64_t> expected_hash,
                        const ReplayObserver& observer) {
  if (broken_) return false;
  const std::size_t index = applied_;
  MoveResult result = game_->apply(seat, move);
  if (!result.ok()) {
    ReplayBreak broken;
    broken.kind = ReplayBreak::Kind::kRefused;
    broken.index = index;
    broken.code = result.code();
    broken.message = result.message();
    broken_ = std::move(broken);
    return false;
  }
  if (expected_hash) {
    // Hashed only where the log kept a checkpoint: hashing is the costly part of a replay.
    const std::uint64_t reached = game_->state_hash();
    if (reached != *expected_hash) {
      ReplayBreak broken;
      broken.kind = ReplayBreak::Kind::kDifferentState;
      broken.index = index;
      broken.expected = *expected_hash;
      broken.reached = reached;
      broken_ = std::move(broken);
      return false;
    }
  }
  ++applied_;
  last_ = std::move(result);
  if (observer) observer(ReplayStep{index, seat, move, *last_, *game_});
  return true;
}

ReplayOutcome replay_log(std::unique_ptr<Game> game, std::span<const ReplayMove> log,
                         const ReplayObserver& observer) {
  LogReplayer replayer(std::move(game));
  for (const ReplayMove& entry : log) {
    if (!replayer.apply(entry.seat, entry.move, entry.state_hash, observer)) break;
  }
  ReplayOutcome out;
  out.applied = replayer.applied();
  out.broken = replayer.broken();
  out.game = replayer.release();
  return out;
}

ReplayOutcome replay_log(const GameInfo& info, const Json& options, int seats, std::uint64_t seed,
                         std::span<const ReplayMove> log, const ReplayObserver& observer) {
  return replay_log(info.create(options, seats, seed), log, observer);
}

}  // namespace parlor
