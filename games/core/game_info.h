// What the registry knows about one kind of game: its names, seat range,
// options schema and the factory that deals a new game.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "games/core/game.h"
#include "games/core/options.h"

namespace parlor {

struct GameInfo {
  std::string kind;         // wire id, e.g. "bigtwo"
  std::string name;         // shown to people, e.g. "Big Two"
  std::string description;  // one sentence
  std::string rules_url;    // the reference rules
  int min_seats = 2;
  int max_seats = 4;
  int default_seats = 4;
  std::vector<OptionSpec> options;
  // Called with normalized options (every default filled) and a seat count in range.
  std::function<std::unique_ptr<Game>(const Json& options, int seats, std::uint64_t seed)> create;
};

// The list_games entry: {"kind","name","min_seats","max_seats","options",...}.
Json game_info_json(const GameInfo& info);

}  // namespace parlor
