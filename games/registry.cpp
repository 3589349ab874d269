#include "games/registry.h"

#include "games/agram/agram.h"
#include "games/bidwhist/bidwhist.h"
#include "games/bigtwo/bigtwo.h"
#include "games/spades/spades.h"
#include "games/splendor/splendor.h"

namespace parlor {

const std::vector<GameInfo>& game_registry() {
  static const std::vector<GameInfo> games = {
      bigtwo_info(), bidwhist_info(), spades_info(), agram_info(), splendor_info(),
  };
  return games;
}

const GameInfo* find_game(std::string_view kind) {
  for (const GameInfo& info : game_registry()) {
    if (info.kind == kind) return &info;
  }
  return nullptr;
}

std::unique_ptr<Game> create_game(const GameInfo& info, const Json& options, int seats,
                                  std::uint64_t seed, Json* normalized_options,
                                  std::string& error) {
  if (seats < info.min_seats || seats > info.max_seats) {
    error = info.name + " is played by " + std::to_string(info.min_seats) + " to " +
            std::to_string(info.max_seats) + " players";
    return nullptr;
  }
  auto normalized = normalize_options(info.options, options, error);
  if (!normalized) return nullptr;
  auto game = info.create(*normalized, seats, seed);
  if (normalized_options) *normalized_options = std::move(*normalized);
  return game;
}

}  // namespace parlor
