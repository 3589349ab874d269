// The directory of every game this build of Parlor can host: kind -> GameInfo.
// Adding a game is one line in registry.cpp.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "games/core/game_info.h"

namespace parlor {

const std::vector<GameInfo>& game_registry();
const GameInfo* find_game(std::string_view kind);

// Adds a game the server learns of when it starts (an engine behind HTTP, games/external/),
// or replaces one added so before under the same kind. Only before any room exists: the
// registry hands out pointers to its entries. False, with a message, for a built-in kind.
bool register_game(GameInfo info, std::string& error);

// Validates options and seat count for `info`, then deals. On a bad request returns null
// and a message in `error`; `normalized_options` receives the options with defaults filled.
std::unique_ptr<Game> create_game(const GameInfo& info, const Json& options, int seats,
                                  std::uint64_t seed, Json* normalized_options, std::string& error);

}  // namespace parlor
