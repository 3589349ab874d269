// What the table does as time passes: grace periods of absent players, bot stand-ins, the
// turn clock, and the decision to sweep the room away. Deadlines are values; the Room actor
// arms one timer for next_deadline() and calls advance() when it fires.
#include <algorithm>

#include "server/log.h"
#include "server/metrics.h"
#include "server/room/table.h"

namespace parlor::server {

void Table::presence_changed(const std::shared_ptr<Player>& player, bool connected, bool resumed,
                             TableTime now, Outbox& out) {
  if (!is_member(*player)) return;
  last_activity_ = now.steady;
  if (Spectator* spectator = spectator_of(*player)) spectator->connected = connected;
  if (auto seat = seat_of(*player)) {
    auto& occupant = *seats_[static_cast<std::size_t>(*seat)];
    occupant.connected = connected;
    if (connected) {
      // Back: the player takes the seat over from its stand-in bot.
      occupant.grace.reset();
      if (occupant.bot) {
        occupant.bot.reset();
        log_info("room " + id() + ": " + player->id() + " is back at seat " + std::to_string(*seat),
                 {.event = "player_back", .room = id(), .player = player->id()});
        if (!turn_clock_) arm_turn_clock(now);  // a human to act again: a clock for them
      }
    } else if (status_ == RoomStatus::kPlaying && !occupant.bot && !occupant.grace) {
      occupant.grace = now.steady + setup_.options.grace;
    }
  }
  publish_room(out);  // the `connected` flags changed; a resumed player gets the room too
  if (resumed) push_chat_history_to(player, out);
  if (resumed && game_) push_state_to(player, now, out);
  if (resumed) push_event_history_to(player, out);
}

void Table::renamed(const Player& player, Outbox& out) {
  const auto seat = seat_of(player);
  if (!seat) return;
  auto& occupant = *seats_[static_cast<std::size_t>(*seat)];
  std::string name = player.name();
  if (occupant.name == name) return;
  occupant.name = std::move(name);
  publish_room(out);
}

std::optional<Clock::time_point> Table::next_deadline() const {
  std::optional<Clock::time_point> next = bot_due_;
  auto consider = [&](Clock::time_point at) {
    if (!next || at < *next) next = at;
  };
  if (turn_clock_) consider(turn_clock_->at);
  if (engine_retry_) consider(*engine_retry_);
  if (spectators_due_) consider(*spectators_due_);
  for (const auto& occupant : seats_) {
    if (occupant && occupant->grace) consider(*occupant->grace);
  }
  return next;
}

void Table::advance(TableTime now, Outbox& out) {
  // Grace periods first: a seat whose player stayed away gets its bot before bots move.
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    auto& occupant = seats_[s];
    if (!occupant || !occupant->grace || *occupant->grace > now.steady) continue;
    occupant->grace.reset();
    if (status_ != RoomStatus::kPlaying || occupant->connected || !occupant->player) continue;
    hand_seat_to_bot(*occupant);
    metrics_.bot_takeovers.fetch_add(1, std::memory_order_relaxed);
    log_info(
        "room " + id() + ": a bot plays seat " + std::to_string(s) + " until its player returns",
        {.event = "bot_took_seat", .room = id(), .player = occupant->player->id()});
    publish_room(out);
    schedule_bots(now);
  }
  if (engine_retry_ && *engine_retry_ <= now.steady) retry_engine(out);
  if (turn_clock_ && turn_clock_->at <= now.steady) on_turn_timeout(now, out);
  if (bot_due_ && *bot_due_ <= now.steady) {
    bot_due_.reset();
    run_bots(now, out);
  }
  // The record holds no spectators: nothing to store.
  if (spectators_due_ && *spectators_due_ <= now.steady) publish_room(out, /*persist=*/false);
}

void Table::hand_seat_to_bot(Occupant& occupant) {
  occupant.grace.reset();
  occupant.bot = bots::make_best_strategy(setup_.game->kind);
}

void Table::schedule_bots(TableTime now) {
  if (status_ != RoomStatus::kPlaying || bot_due_ || bot_thinking_ || engine_busy()) return;
  for (Seat s : game_->to_act()) {
    if (seats_[static_cast<std::size_t>(s)]->bot) {
      bot_due_ = now.steady + timings_.bot_delay;
      return;
    }
  }
}

void Table::run_bots(TableTime now, Outbox& out) {
  if (status_ != RoomStatus::kPlaying || bot_thinking_ || engine_busy()) return;
  for (Seat s : game_->to_act()) {
    auto& occupant = seats_[static_cast<std::size_t>(s)];
    if (!occupant->bot) continue;
    // The bot sees what its seat sees, nothing more. A searching bot thinks off the strand.
    if (bots::strategy_searches(occupant->bot->name())) {
      bot_thinking_ = true;
      thinking_bot_ = occupant->bot.get();
      out.bot_think =
          BotThink{occupant->bot, game_->view(s), game_->prompt(s), bot_rng().next(), seq_, s};
      return;
    }
    Json move = occupant->bot->choose(game_->view(s), game_->prompt(s), bot_rng());
    if (accept_move(s, std::move(move), MoveBy::kBot, nullptr, now, out)) {
      return;  // after_accepted schedules the next bot
    }
    occupant->bot.reset();  // a bot that breaks the rules stops playing
  }
}

void Table::bot_answered(const bots::Strategy* bot, Seat seat, std::int64_t seq, Json move,
                         TableTime now, Outbox& out) {
  bot_thinking_ = false;
  thinking_bot_ = nullptr;
  // What happened while it thought, in order, before its move is judged.
  for (auto& occupant : seats_) {
    if (!occupant || occupant->bot.get() != bot) continue;
    if (reset_later_) occupant->bot->reset();
    for (const Json& events : observe_later_) occupant->bot->observe(events);
  }
  observe_later_.clear();
  reset_later_ = false;
  const bool current = status_ == RoomStatus::kPlaying && seq == seq_ && !engine_busy() &&
                       seat >= 0 && seat < setup_.seats && seats_[static_cast<std::size_t>(seat)] &&
                       seats_[static_cast<std::size_t>(seat)]->bot.get() == bot;
  if (!current) return schedule_bots(now);
  if (!accept_move(seat, std::move(move), MoveBy::kBot, nullptr, now, out)) {
    seats_[static_cast<std::size_t>(seat)]->bot.reset();  // a bot that breaks the rules stops
  }
}

void Table::bots_observe(std::string_view events) {
  Json parsed;
  for (auto& occupant : seats_) {
    if (!occupant || !occupant->bot || !occupant->bot->observes()) continue;
    if (parsed.is_null()) parsed = Json::parse(events, nullptr, false);
    if (occupant->bot.get() == thinking_bot_) {
      observe_later_.push_back(parsed);
      continue;
    }
    occupant->bot->observe(parsed);
  }
}

void Table::arm_turn_clock(TableTime now) {
  if (setup_.options.turn_seconds.count() == 0) return;  // no clock: nothing to arm
  turn_clock_.reset();
  if (status_ != RoomStatus::kPlaying || engine_busy()) return;
  const auto to_act = game_->to_act();
  const bool human_to_act = std::any_of(to_act.begin(), to_act.end(), [&](Seat s) {
    return !seats_[static_cast<std::size_t>(s)]->bot;
  });
  if (!human_to_act) return;
  turn_clock_ = TurnClock{now.steady + setup_.options.turn_seconds,
                          now.unix_ms + std::chrono::duration_cast<std::chrono::milliseconds>(
                                            setup_.options.turn_seconds)
                                            .count()};
}

// Whichever of a late move and the clock reaches the table first wins: a move accepted
// before advance() re-armed the clock for the next turn, and a move after the timeout meets
// a changed seq (stale_state) or another turn.
void Table::on_turn_timeout(TableTime now, Outbox& out) {
  turn_clock_.reset();
  if (status_ != RoomStatus::kPlaying) return;
  for (Seat s : game_->to_act()) {
    if (seats_[static_cast<std::size_t>(s)]->bot) continue;
    accept_move(s, timeout_move(s), MoveBy::kTimeout, nullptr, now, out);
    return;
  }
}

Json Table::timeout_move(Seat seat) {
  const Json prompt = game_->prompt(seat);
  if (setup_.options.on_timeout == OnTimeout::kBot) {
    return bots::make_best_strategy(setup_.game->kind)
        ->choose(game_->view(seat), prompt, bot_rng());
  }
  return bots::pass_or_first_legal(prompt);
}

std::optional<protocol::TurnDeadline> Table::deadline(TableTime now) const {
  if (!turn_clock_) return std::nullopt;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(turn_clock_->at - now.steady);
  return protocol::TurnDeadline{turn_clock_->at_unix_ms, std::max<std::int64_t>(0, left.count())};
}

void Table::sweep(TableTime now, Outbox& out) {
  const bool finished_long_ago = status_ == RoomStatus::kFinished &&
                                 now.steady - finished_at_ > timings_.finished_room_retention;
  const bool abandoned =
      !any_human_connected() && now.steady - last_activity_ > timings_.empty_room_timeout;
  if (!finished_long_ago && !abandoned) return;
  bot_due_.reset();
  turn_clock_.reset();
  for (auto& occupant : seats_) {
    if (!occupant) continue;
    occupant->grace.reset();
    if (occupant->player) out.memberships.push_back({occupant->player, false});
  }
  for (const auto& spectator : spectators_) out.memberships.push_back({spectator.player, false});
  count_open(false, out);
  if (setup_.persistent && status_ != RoomStatus::kFinished) {
    RoomRecord abandoned_record = record();
    abandoned_record.status = StoredRoomStatus::kAbandoned;
    gate_.write(out, {std::move(abandoned_record), false});
  }
  log_info(
      "room " + id() + " removed (" + (finished_long_ago ? "finished" : "nobody connected") + ")",
      {.event = "room_removed", .room = id()});
  out.remove = true;
}

}  // namespace parlor::server
