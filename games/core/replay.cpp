#include "games/core/replay.h"

namespace parlor {

std::optional<ReplayBreak> replay_log(Game& game, std::span<const LoggedMove> log,
                                      const ReplayStepObserver& on_step) {
  for (std::size_t i = 0; i < log.size(); ++i) {
    const LoggedMove& logged = log[i];
    MoveResult result = game.apply(logged.seat, *logged.move);
    if (!result.ok()) return ReplayBreak{i, "is refused (" + result.code() + ")"};
    if (logged.state_hash && *logged.state_hash != game.state_hash()) {
      return ReplayBreak{i, "reaches a different state"};
    }
    if (on_step) on_step(i, result);
  }
  return std::nullopt;
}

}  // namespace parlor
