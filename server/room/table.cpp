// The table's requests and the game's lifecycle: seating, start and rematch, and the one
// path every accepted move takes.
#include "server/room/table.h"

#include <algorithm>

#include "protocol/text.h"
#include "server/log.h"
#include "server/metrics.h"

namespace parlor::server {

using protocol::ErrorCode;

namespace {
constexpr std::size_t kHashEvery = 16;  // moves between stored state-hash checkpoints
}  // namespace

TableTime TableTime::now() {
  return {Clock::now(), std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count()};
}

Table::Table(TableSetup setup, TableTimings timings, Metrics& metrics, std::uint64_t bot_seed,
             TableTime created)
    : setup_(std::move(setup)),
      timings_(timings),
      metrics_(metrics),
      game_metrics_(metrics.game(setup_.game->kind)),
      seats_(static_cast<std::size_t>(setup_.seats)),
      created_ms_(created.unix_ms),
      bot_seed_(bot_seed),
      last_activity_(created.steady) {}

Rng& Table::bot_rng() {
  if (!bot_rng_) bot_rng_ = std::make_unique<Rng>(bot_seed_);
  return *bot_rng_;
}

// ---- requests ----------------------------------------------------------------------------

void Table::join(const Caller& caller, std::optional<int> seat, bool creating, TableTime now,
                 Outbox& out) {
  last_activity_ = now.steady;
  if (auto current = seat_of(*caller.player)) {
    if (seat && *seat != *current) {
      return reply_error(caller, ErrorCode::kNotAllowed,
                         "you already sit at seat " + std::to_string(*current) + " in this room",
                         out);
    }
    reply(caller, protocol::encode_joined(caller.re, id(), *current), out);
    push_room_to(caller.player, out);
    if (game_) push_state_to(caller.player, now, out);
    push_event_history_to(caller.player, out);
    return;
  }
  if (status_ != RoomStatus::kWaiting) {
    return reply_error(caller, ErrorCode::kAlreadyStarted,
                       "the game in room " + id() + " has started", out);
  }
  if (setup_.options.locked) {
    return reply_error(caller, ErrorCode::kRoomLocked,
                       "room " + id() + " is locked by its creator: nobody new may sit down", out);
  }
  if (seat && (*seat < 0 || *seat >= setup_.seats)) {
    return reply_error(caller, ErrorCode::kBadRequest,
                       "seat must be between 0 and " + std::to_string(setup_.seats - 1), out);
  }
  if (seat && seats_[static_cast<std::size_t>(*seat)]) {
    return reply_error(caller, ErrorCode::kSeatTaken, "seat " + std::to_string(*seat) + " is taken",
                       out);
  }
  if (!seat) {
    auto free = std::find_if(seats_.begin(), seats_.end(), [](const auto& o) { return !o; });
    if (free == seats_.end()) {
      return reply_error(caller, ErrorCode::kRoomFull, "every seat in room " + id() + " is taken",
                         out);
    }
    seat = static_cast<int>(free - seats_.begin());
  }
  // A spectator who takes a seat stops watching.
  if (std::erase_if(spectators_, [&](const Spectator& s) { return s.player == caller.player; })) {
    out.watchers.push_back({caller.player->id(), false});
  }
  seats_[static_cast<std::size_t>(*seat)] =
      Occupant{caller.player, caller.player->name(), true, nullptr, std::nullopt};
  out.memberships.push_back({caller.player, true});
  reply(caller,
        creating ? protocol::encode_room_created(caller.re, id())
                 : protocol::encode_joined(caller.re, id(), *seat),
        out);
  publish_room(out);
  push_chat_history_to(caller.player, out);
}

void Table::watch(const Caller& caller, TableTime now, Outbox& out) {
  last_activity_ = now.steady;
  if (seat_of(*caller.player)) {
    return reply_error(caller, ErrorCode::kNotAllowed, "you are seated in this room", out);
  }
  if (Spectator* spectator = spectator_of(*caller.player)) {
    spectator->connected = true;
  } else {
    spectators_.push_back({caller.player, true});
    out.memberships.push_back({caller.player, true});
    out.watchers.push_back({caller.player->id(), true});
    // The others learn the new count a moment later; a spectator coming back changes none.
    publish_spectators_later(now, out);
  }
  reply(caller, protocol::encode_watching(caller.re, id()), out);
  push_room_to(caller.player, out);
  push_chat_history_to(caller.player, out);
  if (game_) push_state_to(caller.player, now, out);
  push_event_history_to(caller.player, out);
}

void Table::leave(const Caller& caller, TableTime now, Outbox& out) {
  last_activity_ = now.steady;
  auto spectator = std::find_if(spectators_.begin(), spectators_.end(),
                                [&](const Spectator& s) { return s.player == caller.player; });
  if (spectator != spectators_.end()) {
    spectators_.erase(spectator);
    out.watchers.push_back({caller.player->id(), false});
    out.memberships.push_back({caller.player, false});
    reply(caller, protocol::encode_left(caller.re, id()), out);
    return publish_spectators_later(now, out);
  }
  const auto seat = seat_of(*caller.player);
  if (!seat) return reply_error(caller, ErrorCode::kNotSeated, "you are not in room " + id(), out);
  auto& occupant = seats_[static_cast<std::size_t>(*seat)];
  if (status_ == RoomStatus::kPlaying) {
    // The game goes on: a bot takes the seat over for good. In a rated game the seat's
    // player has abandoned it: it ranks last.
    if (static_cast<std::size_t>(*seat) < left_game_.size()) {
      left_game_[static_cast<std::size_t>(*seat)] = true;
    }
    occupant->player.reset();
    occupant->name = "Bot (" + occupant->name + ")";
    hand_seat_to_bot(*occupant);
  } else {
    occupant.reset();
  }
  out.memberships.push_back({caller.player, false});
  reply(caller, protocol::encode_left(caller.re, id()), out);
  publish_room(out);
  schedule_bots(now);
}

void Table::add_bot(const Caller& caller, int seat, const std::string& strategy, TableTime now,
                    Outbox& out) {
  last_activity_ = now.steady;
  if (!is_member(*caller.player)) {
    return reply_error(caller, ErrorCode::kNotSeated, "only players in the room may add bots", out);
  }
  if (setup_.options.rated && !caller.server_seats_bots) {
    return reply_error(caller, ErrorCode::kRatedNoBots,
                       "room " + id() +
                           " is rated: players may not add bots (quick play's rated tables seat "
                           "bots themselves)",
                       out);
  }
  if (seat < 0 || seat >= setup_.seats) {
    return reply_error(caller, ErrorCode::kBadRequest,
                       "seat must be between 0 and " + std::to_string(setup_.seats - 1), out);
  }
  auto& occupant = seats_[static_cast<std::size_t>(seat)];
  if (occupant) {
    return reply_error(caller, ErrorCode::kSeatTaken, "seat " + std::to_string(seat) + " is taken",
                       out);
  }
  auto bot = bots::make_strategy(strategy, setup_.game->kind);
  if (!bot) {
    std::string names;
    for (const auto& n : bots::strategy_names(setup_.game->kind)) {
      names += (names.empty() ? "" : ", ") + n;
    }
    return reply_error(
        caller, ErrorCode::kUnknownStrategy,
        "no bot strategy " + protocol::quote_client_text(strategy, 32) + "; try " + names, out);
  }
  occupant = Occupant{nullptr, "Bot " + std::to_string(seat + 1) + " (" + strategy + ")", false,
                      std::move(bot), std::nullopt};
  reply_ok(caller, std::nullopt, out);
  publish_room(out);
}

void Table::start(const Caller& caller, TableTime now, Outbox& out) {
  last_activity_ = now.steady;
  if (!seat_of(*caller.player)) {
    return reply_error(caller, ErrorCode::kNotSeated, "only seated players may start the game",
                       out);
  }
  if (status_ == RoomStatus::kPlaying) {
    return reply_error(caller, ErrorCode::kAlreadyStarted, "the game is already being played", out);
  }
  if (status_ == RoomStatus::kFrozen) {
    return reply_error(caller, ErrorCode::kNotAllowed, "this room was stopped and cannot be played",
                       out);
  }
  // The host starts the game and deals each rematch, for everyone; while the host does not
  // sit at the table (they left it), any seated player may. Rooms quick play opens have no
  // host.
  if (setup_.creator && caller.player != setup_.creator && seat_of(*setup_.creator)) {
    return reply_error(
        caller, ErrorCode::kNotAllowed,
        "only the host, " + setup_.creator->name() + ", starts the game in room " + id(), out);
  }
  const auto empty = std::count_if(seats_.begin(), seats_.end(), [](const auto& o) { return !o; });
  if (empty > 0) {
    return reply_error(
        caller, ErrorCode::kNotAllowed,
        std::to_string(empty) + " seat(s) are still empty; fill them with players or bots first",
        out);
  }
  // The ok waits, like the deal's pushes, until the new game's seed is stored.
  begin_game(now, out);
  reply_ok(caller, std::nullopt, out);
}

void Table::chat(const Caller& caller, const std::string& text, TableTime now, Outbox& out) {
  last_activity_ = now.steady;
  if (!is_member(*caller.player)) {
    return reply_error(caller, ErrorCode::kNotSeated, "join or watch the room to chat", out);
  }
  reply_ok(caller, std::nullopt, out);
  send_to_members(
      make_frame(protocol::encode_chat(id(), caller.player->id(), caller.player->name(), text)),
      out, caller.player->id());
  chat_history_.push_back({caller.player->id(), caller.player->name(), text, now.unix_ms});
  if (chat_history_.size() > kChatHistory) chat_history_.pop_front();
}

void Table::move(const Caller& caller, Json move, std::optional<std::int64_t> seq, TableTime now,
                 Outbox& out, std::string&& move_text) {
  last_activity_ = now.steady;
  auto seat = seat_of(*caller.player);
  if (!seat)
    return reply_error(caller, ErrorCode::kNotSeated, "you have no seat in room " + id(), out);
  switch (status_) {
    case RoomStatus::kWaiting:
      return reply_error(caller, ErrorCode::kNotStarted, "the game has not started", out);
    case RoomStatus::kFinished:
      return reply_error(caller, ErrorCode::kGameOver,
                         "the game is over; start a rematch to play again", out);
    case RoomStatus::kFrozen:
      if (store_stalled_) {
        return reply_error(caller, ErrorCode::kNotAllowed,
                           "the game is paused until its store answers again", out);
      }
      return reply_error(caller, ErrorCode::kNotAllowed,
                         "this game was stopped and cannot be played on", out);
    case RoomStatus::kPlaying:
    case RoomStatus::kPaused:
      break;
  }
  if (seq && *seq != seq_) {
    return reply_error(caller, ErrorCode::kStaleState,
                       "you acted on state " + std::to_string(*seq) + " but the room is at " +
                           std::to_string(seq_),
                       out);
  }
  accept_move(*seat, std::move(move), MoveBy::kPlayer, &caller, now, out, std::move(move_text));
}

void Table::legal_moves(const Caller& caller, Outbox& out) {
  auto seat = seat_of(*caller.player);
  if (!seat)
    return reply_error(caller, ErrorCode::kNotSeated, "you have no seat in this room", out);
  if (!game_) return reply_error(caller, ErrorCode::kNotStarted, "the game has not started", out);
  reply(caller, protocol::encode_legal_moves(caller.re, id(), game_->legal_moves(*seat)), out);
}

// ---- the game's lifecycle ----------------------------------------------------------------

bool Table::accept_move(Seat seat, Json move, MoveBy by, const Caller* caller, TableTime now,
                        Outbox& out, std::string&& move_text) {
  // An external game's engine answers first; the answer comes back as the move to record
  // (its own text: this one is not kept).
  if (auto* remote = external_game()) {
    return ask_engine(*remote, seat, std::move(move), by, caller, out);
  }
  MoveResult result = game_->apply(seat, move);
  if (!result.ok()) {
    if (caller) {
      reply_refusal(*caller, result, out);
    } else {
      log_error("room " + id() + ": " + (by == MoveBy::kBot ? "bot" : "timeout") +
                    " move for seat " + std::to_string(seat) + " was refused (" + result.code() +
                    ")",
                {.event = "stand_in_move_refused", .room = id()});
    }
    return false;
  }
  record_move(seat, std::move(move), result, by, caller, now, out, std::move(move_text));
  return true;
}

void Table::record_move(Seat seat, Json move, const MoveResult& result, MoveBy by,
                        const Caller* caller, TableTime now, Outbox& out, std::string&& move_text) {
  ++moves_in_game_;
  ++seq_;
  auto& by_whom = by == MoveBy::kPlayer ? game_metrics_.moves_by_player
                  : by == MoveBy::kBot  ? game_metrics_.moves_by_bot
                                        : game_metrics_.moves_by_timeout;
  by_whom.add();
  persist_move(seat, std::move(move), now, out, std::move(move_text));
  if (caller) {
    reply_ok(*caller, seq_, out);
    out.accepted_move_received = caller->received;
  }
  if (by != MoveBy::kTimeout) {
    after_accepted(result.events_text(), now, out);
  } else {
    // Everyone learns that the clock, not the player, made this move.
    Json events = result.events();
    events.push_back({{"type", "timeout"}, {"seat", seat}});
    after_accepted(protocol::to_wire(events), now, out);
  }
}

void Table::persist_move(Seat seat, Json move, TableTime now, Outbox& out,
                         std::string&& move_text) {
  if (!setup_.persistent) return;
  MoveRecord record{id(),         game_number_,    seq_,
                    seat,         std::move(move), now.unix_ms,
                    std::nullopt, setup_.epoch,    std::move(move_text)};
  // A checkpoint every few moves and at the end lets recovery notice an engine that no
  // longer replays the log identically.
  if (moves_in_game_ % kHashEvery == 0 || game_->finished())
    record.state_hash = game_->state_hash();
  gate_.write(out, {std::move(record), /*gating=*/true});
}

void Table::begin_game(TableTime now, Outbox& out) {
  // A fixed (dev) seed still deals each rematch differently, reproducibly: game 1 uses the
  // seed itself, so a finished game's reveal never shows the next game's hands.
  seed_ = setup_.options.seed ? *setup_.options.seed + static_cast<std::uint64_t>(game_number_)
                              : setup_.draw_seed();
  game_ = setup_.game->create(setup_.game_options, setup_.seats, seed_);
  if (status_ == RoomStatus::kFinished) {
    ++seq_;  // a rematch: seq keeps increasing
    count_open(true, out);
  }
  moves_in_game_ = 0;
  ++game_number_;
  event_history_.clear();  // the play log is the current game's
  for (auto& occupant : seats_) {
    if (!occupant || !occupant->bot) continue;
    if (occupant->bot.get() == thinking_bot_) {
      // Still searching the last game: forget it once the answer is back.
      observe_later_.clear();
      reset_later_ = true;
      continue;
    }
    occupant->bot->reset();  // a new game's history
  }
  start_seq_ = seq_;
  game_started_ms_ = now.unix_ms;
  note_rated_identities();
  finished_ms_.reset();
  status_ = RoomStatus::kPlaying;
  log_info("room " + id() + " started " + setup_.game->kind,
           {.event = "game_started", .room = id()});
  // The new deal's seed must be durable before anyone sees the deal.
  persist_room(out, /*gate_frames=*/true);
  publish_room(out, /*persist=*/false);  // just saved
  after_accepted(kStartEvents, now, out);
}

void Table::after_accepted(std::string_view events, TableTime now, Outbox& out) {
  remember_events(seq_, events);
  bots_observe(events);
  arm_turn_clock(now);
  broadcast_state(events, now, out);
  if (game_->finished()) return finish_game(now, out);
  if (external_game()) continue_with_engine(out);
  schedule_bots(now);
}

void Table::finish_game(TableTime now, Outbox& out) {
  status_ = RoomStatus::kFinished;
  finished_ms_ = now.unix_ms;
  finished_at_ = now.steady;
  turn_clock_.reset();
  bot_due_.reset();
  send_to_members(make_frame(protocol::encode_game_over(id(), game_->result())), out);
  // Before the record that says the room finished: once that is durable, so is this, and
  // until it is, a recovery replays the game to its end and records it again.
  record_rated_game(now, out);
  count_open(false, out);
  log_info("room " + id() + " finished after " + std::to_string(moves_in_game_) + " moves",
           {.event = "game_finished", .room = id()});
  publish_room(out);
}

void Table::freeze(std::string_view why, Outbox& out) {
  log_error("room " + id() + ": " + std::string(why) + "; the game is stopped",
            {.event = "game_frozen", .room = id()});
  gate_.drop_held();
  status_ = RoomStatus::kFrozen;
  turn_clock_.reset();
  bot_due_.reset();
  send_to_members(
      make_frame(protocol::encode_error(nullptr, ErrorCode::kInternalError,
                                        "this game could not be saved and has been stopped")),
      out);
  publish_room(out);
}

void Table::count_open(bool open, Outbox& out) {
  if (counted_open_ == open || !setup_.creator) return;
  counted_open_ = open;
  out.open_rooms_delta += open ? 1 : -1;
}

}  // namespace parlor::server
