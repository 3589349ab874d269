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

// Invalid UTF-8 is replaced as on the wire (protocol::to_wire), never thrown on.
void Game::write_view(Seat seat, std::string& out) const {
  out += view(seat).dump(-1, ' ', false, Json::error_handler_t::replace);
}

void Game::write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const {
  for (std::size_t i = 0; i < seats.size(); ++i) write_view(seats[i], *outs[i]);
}

void Game::write_prompt(Seat seat, std::string& out) const {
  out += prompt(seat).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace parlor
