#include "games/core/game.h"

namespace parlor {

std::uint64_t stable_hash(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::uint64_t Game::state_hash() const { return stable_hash(full_state().dump()); }

}  // namespace parlor
