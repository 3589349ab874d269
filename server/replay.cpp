#include "server/replay.h"

#include "games/core/replay.h"
#include "games/registry.h"

namespace parlor::server {

namespace {

ReplayRefusal no_longer_replays() {
  return {protocol::ErrorCode::kInternalError,
          "this game no longer replays under the server's rules engine"};
}

}  // namespace

const GameRecord* find_replay_game(const RoomHistory& history, std::optional<int> number) {
  if (history.games.empty()) return nullptr;
  if (!number) return &history.games.back();
  for (const GameRecord& game : history.games) {
    if (game.game_number == *number) return &game;
  }
  return nullptr;
}

ReplayOutcome build_replay(const RoomHistory& history, const GameRecord& record,
                           std::optional<Seat> as) {
  const GameInfo* info = find_game(history.room.kind);
  if (!info) return no_longer_replays();
  return build_replay(history, record, as,
                      info->create(history.room.game_options, history.room.seats, record.seed));
}

ReplayOutcome build_replay(const RoomHistory& history, const GameRecord& record,
                           std::optional<Seat> as, std::unique_ptr<Game> game) {
  const Seat viewer = as.value_or(kSpectator);
  Json initial = game->full_state();
  // The seed never leaves the server, even after the end: the reveal shows the deal itself.
  if (initial.is_object()) initial.erase("seed");

  protocol::Replay out;
  out.room = history.room.id;
  out.kind = history.room.kind;
  out.game = record.game_number;
  out.as = as;
  out.options = history.room.game_options;
  out.steps.reserve(record.moves.size() + 1);
  out.steps.push_back(
      {record.start_seq, std::nullopt, nullptr, game->view(viewer), game->to_act(), nullptr});
  LogReplayer replayer(std::move(game));
  for (const MoveRecord& move : record.moves) {
    if (!replayer.apply(move.seat, move.move, move.state_hash)) return no_longer_replays();
    // Your own moves are yours to see; others' only through their public events.
    out.steps.push_back(
        {move.seq, move.seat, replayer.last_result()->events(), replayer.game().view(viewer),
         replayer.game().to_act(),
         as && move.seat == *as ? replayer.game().shown_move(move.move) : Json(nullptr)});
  }
  const Game& end = replayer.game();
  out.finished = end.finished();
  out.result = out.finished ? end.result() : Json(nullptr);
  out.reveal = nullptr;
  if (out.finished) {
    Json moves = Json::array();
    for (const MoveRecord& move : record.moves) {
      moves.push_back(
          {{"seq", move.seq}, {"seat", move.seat}, {"move", end.shown_move(move.move)}});
    }
    out.reveal = {{"initial", std::move(initial)}, {"moves", std::move(moves)}};
  }
  return out;
}

}  // namespace parlor::server
