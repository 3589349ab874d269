#include "server/replay.h"

#include "games/registry.h"

namespace parlor::server {

const GameRecord* find_replay_game(const RoomHistory& history, std::optional<int> number) {
  if (history.games.empty()) return nullptr;
  if (!number) return &history.games.back();
  for (const GameRecord& game : history.games) {
    if (game.game_number == *number) return &game;
  }
  return nullptr;
}

Json build_replay(const RoomHistory& history, const GameRecord& record, std::optional<Seat> as) {
  const GameInfo* info = find_game(history.room.kind);
  if (!info) return nullptr;
  auto game = info->create(history.room.game_options, history.room.seats, record.seed);
  const Seat viewer = as.value_or(kSpectator);
  Json initial = game->full_state();
  // The seed never leaves the server, even after the end: the reveal shows the deal itself.
  if (initial.is_object()) initial.erase("seed");

  Json steps = Json::array();
  steps.push_back(
      {{"seq", record.start_seq}, {"view", game->view(viewer)}, {"to_act", game->to_act()}});
  for (const MoveRecord& move : record.moves) {
    MoveResult result = game->apply(move.seat, move.move);
    if (!result.ok()) return nullptr;  // the engine no longer replays this game
    Json step = {{"seq", move.seq},
                 {"seat", move.seat},
                 {"events", result.events()},
                 {"view", game->view(viewer)},
                 {"to_act", game->to_act()}};
    // Your own moves are yours to see; others' only through their public events.
    if (as && move.seat == *as) step["move"] = move.move;
    steps.push_back(std::move(step));
  }
  const bool finished = game->finished();
  Json out = {{"type", "replay"},
              {"room", history.room.id},
              {"kind", history.room.kind},
              {"game", record.game_number},
              {"as", as ? Json(*as) : Json(nullptr)},
              {"finished", finished},
              {"options", history.room.game_options},
              {"steps", std::move(steps)},
              {"result", finished ? game->result() : Json(nullptr)},
              {"reveal", nullptr}};
  if (finished) {
    Json moves = Json::array();
    for (const MoveRecord& move : record.moves) {
      moves.push_back({{"seq", move.seq}, {"seat", move.seat}, {"move", move.move}});
    }
    out["reveal"] = {{"initial", initial}, {"moves", std::move(moves)}};
  }
  return out;
}

}  // namespace parlor::server
