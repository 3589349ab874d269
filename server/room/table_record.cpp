// The table and the store: the room record, what a failed write does, and how a table is
// rebuilt from what was stored. (Each accepted move is written by accept_move, table.cpp.)
#include "games/core/replay.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/ratings/ratings.h"
#include "server/room/table.h"

namespace parlor::server {
namespace {

StoredRoomStatus stored_status(RoomStatus status) {
  switch (status) {
    case RoomStatus::kWaiting:
      return StoredRoomStatus::kWaiting;
    case RoomStatus::kPlaying:
    case RoomStatus::kPaused:
      return StoredRoomStatus::kPlaying;
    case RoomStatus::kFinished:
    case RoomStatus::kFrozen:
      return StoredRoomStatus::kFinished;
  }
  return StoredRoomStatus::kFinished;
}

}  // namespace

void Table::persist_room(Outbox& out, bool gate_frames) {
  // A stalled table is out of step with the store (it applied what could not be stored):
  // the store keeps what it has, from which the room is loaded again.
  if (!setup_.persistent || store_stalled_) return;
  gate_.write(out, {record(), gate_frames});
}

void Table::note_rated_identities() {
  rated_identities_.clear();
  left_game_.assign(seats_.size(), false);
  if (!setup_.options.rated) return;
  for (const auto& occupant : seats_) {
    RatedSeat seat;
    if (occupant && occupant->player) {
      seat.player_id = occupant->player->id();
      seat.name = occupant->name;
    } else if (occupant && occupant->bot) {
      seat.player_id = "bot:" + std::string(occupant->bot->name());
      seat.name = std::string(occupant->bot->name()) + " (bot)";
    }
    rated_identities_.push_back(std::move(seat));
  }
}

void Table::record_rated_game(TableTime now, Outbox& out) {
  if (!setup_.options.rated || !setup_.persistent || !game_ || !game_->finished()) return;
  if (rated_identities_.size() != seats_.size()) return;
  // A seat is abandoned when its player left it, or when a stand-in bot still plays it for a
  // player whose grace ran out.
  std::vector<bool> abandoned(seats_.size(), false);
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    const auto& occupant = seats_[s];
    abandoned[s] =
        (s < left_game_.size() && left_game_[s]) || (occupant && occupant->player && occupant->bot);
  }
  const Json result = game_->result();
  const auto sides = ratings::sides_from_result(result, setup_.seats, abandoned);
  if (!sides || sides->size() < 2) {
    log_error("room " + id() + ": the result of game " + std::to_string(game_number_) +
                  " does not say who won; it is not rated",
              {.event = "rating_skipped", .room = id()});
    return;
  }
  RatedGameRecord rated;
  rated.room_id = id();
  rated.game_number = game_number_;
  rated.kind = setup_.game->kind;
  rated.finished_ms = finished_ms_.value_or(now.unix_ms);
  rated.seats = rated_identities_;
  for (std::size_t k = 0; k < sides->size(); ++k) {
    rated.side_ranks.push_back((*sides)[k].rank);
    for (const int seat : (*sides)[k].seats) {
      auto& who = rated.seats[static_cast<std::size_t>(seat)];
      who.side = static_cast<int>(k);
      who.abandoned = abandoned[static_cast<std::size_t>(seat)];
    }
  }
  for (const RatedSeat& seat : rated.seats) {
    if (seat.player_id.empty()) return;  // a seat nobody held: nothing to rate
  }
  rated.result = result;
  rated.epoch = setup_.epoch;
  rated.owner = setup_.owner;
  gate_.write(out, {std::move(rated), /*gating=*/false});
}

template <typename Answer>
void Table::answer_held_replies(const Answer& answer, Outbox& out) {
  for (const HeldReply& held : held_replies_) {
    out.deliveries.push_back(Delivery{nullptr, held.connection, make_frame(answer(held.re))});
  }
  held_replies_.clear();
}

void Table::durable(WriteResult result, Outbox& out) {
  if (gone_) return;  // a write that was in flight when the room left
  if (result == WriteResult::kFenced) return let_go("", out);
  if (result == WriteResult::kFailed) {
    // Never acknowledge what is not stored: nothing that waited for the write goes out (a
    // game's last move and its game_over included), and the game stops here, visibly. The
    // requests that waited are answered: their moves did not happen.
    gate_.drop_held();
    answer_held_replies(
        [](const Json& re) {
          return protocol::encode_error(re, protocol::ErrorCode::kInternalError,
                                        "this could not be stored, so it did not happen; the "
                                        "game has been stopped");
        },
        out);
    gate_.durable(out);
    if (!setup_.owner.empty()) return stall(out);
    if (status_ != RoomStatus::kFrozen) freeze("a move could not be stored", out);
    return;
  }
  gate_.durable(out);
  if (gate_.outstanding() == 0) held_replies_.clear();  // they went out with the frames
}

void Table::stall(Outbox& out) {
  if (store_stalled_) return;
  log_error("room " + id() +
                ": a write could not be stored; the game is paused until the store answers, "
                "then goes on from its last stored move",
            {.event = "game_stalled", .room = id()});
  gate_.drop_held();
  store_stalled_ = true;
  if (status_ == RoomStatus::kPlaying) status_ = RoomStatus::kFrozen;  // nothing moves here
  turn_clock_.reset();
  bot_due_.reset();
  send_to_members(make_frame(protocol::encode_error(
                      nullptr, protocol::ErrorCode::kInternalError,
                      "the game's store is not answering: the game is paused, and goes on from "
                      "its last stored move when the store answers again")),
                  out);
  publish_room(out);
  out.store_stalled = true;
}

void Table::let_go(std::string_view new_node, Outbox& out) {
  if (gone_) return;
  gone_ = true;
  metrics_.cluster_rooms_let_go.fetch_add(1, std::memory_order_relaxed);
  log_info("room " + id() + " is served by " +
               (new_node.empty() ? std::string("another node") : "node " + std::string(new_node)) +
               " now; letting it go",
           {.event = "room_let_go", .room = id()});
  // Nothing this node decided but did not store may go out: the new owner never saw it.
  gate_.drop_held();
  answer_held_replies(
      [&](const Json& re) {
        return protocol::encode_room_moved(
            re, id(), new_node, "another node serves this room now; this did not happen there");
      },
      out);
  turn_clock_.reset();
  bot_due_.reset();
  const Frame moved = make_frame(protocol::encode_room_moved(
      nullptr, id(), new_node,
      "another node serves this room now; reconnect and resume with your token"));
  const auto leave = [&](const std::shared_ptr<Player>& player) {
    out.memberships.push_back({player, false});
    out.deliveries.push_back({player, nullptr, moved});
  };
  for (auto& occupant : seats_) {
    if (occupant && occupant->player) leave(occupant->player);
  }
  for (const Spectator& spectator : spectators_) leave(spectator.player);
  if (counted_open_ && setup_.creator) out.open_rooms_delta -= 1;
  counted_open_ = false;
  out.remove = true;
}

RoomRecord Table::record() const {
  RoomRecord out;
  out.id = id();
  out.kind = setup_.game->kind;
  out.seats = setup_.seats;
  out.game_options = setup_.game_options;
  out.room_options = room_options_json(setup_.options);
  if (setup_.creator) out.creator_id = setup_.creator->id();
  for (const auto& occupant : seats_) {
    if (!occupant) {
      out.occupants.emplace_back(std::nullopt);
      continue;
    }
    SeatRecord seat;
    if (occupant->player) seat.player_id = occupant->player->id();
    seat.name = occupant->name;
    if (occupant->bot) seat.bot = std::string(occupant->bot->name());
    out.occupants.emplace_back(std::move(seat));
  }
  out.status = stored_status(status_);
  out.created_ms = created_ms_;
  out.finished_ms = finished_ms_;
  out.game_number = game_number_;
  out.seed = seed_;
  out.start_seq = start_seq_;
  out.game_started_ms = game_started_ms_;
  out.epoch = setup_.epoch;
  out.owner = setup_.owner;
  return out;
}

bool Table::restore(const LoadedRoom& stored,
                    const std::function<std::shared_ptr<Player>(const std::string&)>& find_player,
                    TableTime now) {
  const RoomRecord& r = stored.room;
  created_ms_ = r.created_ms;
  game_number_ = r.game_number;
  seed_ = r.seed;
  start_seq_ = r.start_seq;
  game_started_ms_ = r.game_started_ms;
  seq_ = stored.moves.empty() ? r.start_seq : stored.moves.back().seq;
  for (std::size_t s = 0; s < seats_.size() && s < r.occupants.size(); ++s) {
    const auto& seat = r.occupants[s];
    if (!seat) continue;
    // Everyone is disconnected after a restart.
    Occupant occupant{nullptr, seat->name, false, nullptr, std::nullopt};
    if (seat->player_id) occupant.player = find_player(*seat->player_id);
    if (!occupant.player && seat->bot) {
      occupant.bot = bots::make_strategy(*seat->bot, setup_.game->kind);
    }
    if (!occupant.player && !occupant.bot) {
      occupant.bot = bots::make_strategy("random", setup_.game->kind);  // its player is gone
    }
    seats_[s] = std::move(occupant);
  }
  if (r.status != StoredRoomStatus::kPlaying) return true;
  status_ = RoomStatus::kPlaying;
  // Who held the seats, as the record has them: a player who left the game before the
  // restart is not in it any more, and its seat is rated as its stand-in bot.
  rated_identities_.clear();
  left_game_.assign(seats_.size(), false);
  if (setup_.options.rated) {
    for (const auto& seat : r.occupants) {
      RatedSeat who;
      if (seat && seat->player_id) {
        who.player_id = *seat->player_id;
        who.name = seat->name;
      } else if (seat && seat->bot) {
        who.player_id = "bot:" + *seat->bot;
        who.name = *seat->bot + " (bot)";
      }
      rated_identities_.push_back(std::move(who));
    }
  }
  LogReplayer replayer(*setup_.game, setup_.game_options, setup_.seats, seed_);
  // The play log is rebuilt with the game, from the same public events each move's state
  // push carried (a move the clock made lacks its `timeout` mark: the log does not say so).
  remember_events(start_seq_, kStartEvents);
  for (const MoveRecord& m : stored.moves) {
    if (replayer.apply(m.seat, m.move, m.state_hash)) {
      remember_events(m.seq, replayer.last_result()->events_text());
      continue;
    }
    log_error("room " + id() + ": " + replayer.broken()->describe(m.seq) +
                  " under this engine; the room is frozen",
              {.event = "replay_diverged", .room = id()});
    game_ = replayer.release();
    moves_in_game_ = replayer.applied();
    status_ = RoomStatus::kFrozen;
    return false;
  }
  moves_in_game_ = replayer.applied();
  game_ = replayer.release();
  if (game_->finished()) {
    status_ = RoomStatus::kFinished;
    finished_ms_ = now.unix_ms;
    finished_at_ = now.steady;  // retention counts from the recovery
    counted_open_ = false;
  }
  return true;
}

void Table::restore_spectators(const std::vector<std::shared_ptr<Player>>& players) {
  for (const auto& player : players) {
    if (player && !is_member(*player)) spectators_.push_back({player, /*connected=*/false});
  }
}

std::vector<std::shared_ptr<Player>> Table::members() const {
  std::vector<std::shared_ptr<Player>> out;
  for (const auto& occupant : seats_) {
    if (occupant && occupant->player) out.push_back(occupant->player);
  }
  for (const Spectator& spectator : spectators_) out.push_back(spectator.player);
  return out;
}

void Table::resume_after_restore(TableTime now, Outbox& out) {
  if (counted_open_ && setup_.creator) out.open_rooms_delta += 1;
  // The game ended just before the restart: rated again (the store rates a game once).
  if (status_ == RoomStatus::kFinished) record_rated_game(now, out);
  if (status_ != RoomStatus::kPlaying) return publish_room(out);
  // The grace periods start now, and the turn clock restarts in full so nobody loses time
  // to the outage.
  for (auto& occupant : seats_) {
    if (occupant && occupant->player && !occupant->bot) {
      occupant->grace = now.steady + setup_.options.grace;
    }
  }
  publish_room(out);
  arm_turn_clock(now);
  schedule_bots(now);
  // An external game recovered between two engine calls asks for the next one again.
  if (external_game()) continue_with_engine(out);
}

}  // namespace parlor::server
