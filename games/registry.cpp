#include "games/registry.h"

#include "games/agram/agram.h"
#include "games/bidwhist/bidwhist.h"
#include "games/bigtwo/bigtwo.h"
#include "games/spades/spades.h"
#include "games/splendor/splendor.h"

namespace parlor {

namespace {

const std::vector<GameInfo>& built_in_games() {
  static const std::vector<GameInfo> games = {
      bigtwo_info(), bidwhist_info(), spades_info(), agram_info(), splendor_info(),
  };
  return games;
}

// The built-in games first, then those registered at start.
std::vector<GameInfo>& registry() {
  static std::vector<GameInfo> games = built_in_games();
  return games;
}

}  // namespace

const std::vector<GameInfo>& game_registry() { return registry(); }

bool register_game(GameInfo info, std::string& error) {
  auto& games = registry();
  for (std::size_t i = 0; i < games.size(); ++i) {
    if (games[i].kind != info.kind) continue;
    if (i < built_in_games().size()) {
      error = "\"" + info.kind + "\" is the kind of a built-in game";
      return false;
    }
    games[i] = std::move(info);
    return true;
  }
  games.push_back(std::move(info));
  return true;
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
