// The replay message: a stored game shown step by step as one viewer saw it (PROTOCOL.md,
// "get_replay"; the same body answers GET /api/games/<room>/replay). The server decides what
// goes in (server/replay.h); the bytes are written here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "games/core/game.h"

namespace parlor::protocol {

struct ReplayStep {
  std::int64_t seq = 0;
  std::optional<Seat> seat;  // who moved; nullopt for the deal (the first step)
  Json events;               // the move's public events; null for the deal
  Json view;                 // what the viewer saw after it
  std::vector<Seat> to_act;
  Json move;  // the move itself, only when the viewer made it; else null (omitted)
};

struct Replay {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
  std::string room;
  std::string kind;
  int game = 0;
  std::optional<Seat> as;  // the viewer's seat; nullopt: a spectator
  bool finished = false;
  Json options;  // the game's normalized options
  std::vector<ReplayStep> steps;
  Json result;  // null until the game has ended
  // Once the game has ended: {"initial": the deal's full state (no seed), "moves": [...]}.
  Json reveal;
};

// {"type":"replay","room","kind","game","as","finished","options","steps","result","reveal"}
// plus "re" when `re` is not null.
std::string encode_replay(const Json& re, const Replay& replay);

}  // namespace parlor::protocol
