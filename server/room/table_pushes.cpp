// Who belongs to the table and what each member is sent: replies, the room push, state
// pushes. The bytes are protocol/'s; this file decides who gets which, and every frame goes
// through the write-ahead gate.
#include <algorithm>

#include "protocol/state_frame.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/room/table.h"

namespace parlor::server {

std::optional<int> Table::seat_of(const Player& player) const {
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    if (seats_[s] && seats_[s]->player.get() == &player) return static_cast<int>(s);
  }
  return std::nullopt;
}

Table::Spectator* Table::spectator_of(const Player& player) {
  for (Spectator& spectator : spectators_) {
    if (spectator.player.get() == &player) return &spectator;
  }
  return nullptr;
}

bool Table::is_member(const Player& player) const {
  if (seat_of(player)) return true;
  return std::any_of(spectators_.begin(), spectators_.end(),
                     [&](const Spectator& s) { return s.player.get() == &player; });
}

bool Table::any_human_connected() const {
  for (const auto& occupant : seats_) {
    if (occupant && occupant->player && occupant->connected) return true;
  }
  return std::any_of(spectators_.begin(), spectators_.end(),
                     [](const Spectator& s) { return s.connected; });
}

protocol::RoomSummary Table::summary() const {
  protocol::RoomSummary out;
  out.room = id();
  out.kind = setup_.game->kind;
  out.status = status();
  out.spectators = static_cast<int>(spectators_.size());
  out.options = setup_.game_options;
  // A rated room says so where clients already read a table's options (docs/ARCHITECTURE.md,
  // "Ratings"); no game has an option of that name.
  if (setup_.options.rated) out.options["rated"] = true;
  out.locked = setup_.options.locked;
  if (setup_.creator) out.host = setup_.creator->id();
  out.node = setup_.owner;
  for (const auto& occupant : seats_) {
    if (!occupant) {
      out.seats.emplace_back(std::nullopt);
      continue;
    }
    out.seats.emplace_back(protocol::SeatSummary{
        occupant->player ? occupant->player->id() : std::string(), occupant->name,
        occupant->bot != nullptr, occupant->bot != nullptr || occupant->connected});
  }
  return out;
}

void Table::publish_room(Outbox& out, bool persist) {
  if (persist) persist_room(out);
  spectators_due_.reset();  // this push carries the latest count
  auto shared = std::make_shared<const protocol::RoomSummary>(summary());
  const protocol::RoomPush push(*shared);
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    if (seats_[s] && seats_[s]->player) {
      send_to(seats_[s]->player, make_frame(push.for_viewer(static_cast<int>(s))), out);
    }
  }
  if (!spectators_.empty()) {
    const Frame frame = make_frame(push.for_viewer(std::nullopt));
    for (const auto& spectator : spectators_) send_to(spectator.player, frame, out);
  }
  out.summary = std::move(shared);
}

void Table::push_room_to(const std::shared_ptr<Player>& player, Outbox& out) {
  send_to(player, make_frame(protocol::encode_room(summary(), seat_of(*player))), out);
}

void Table::publish_spectators_later(TableTime now, Outbox& out) {
  // The lobby (and the admin API's list) holds the latest summary at once: its own feed
  // coalesces what it pushes.
  out.summary = std::make_shared<const protocol::RoomSummary>(summary());
  if (!spectators_due_) spectators_due_ = now.steady + timings_.spectator_push_delay;
}

void Table::push_chat_history_to(const std::shared_ptr<Player>& player, Outbox& out) {
  if (chat_history_.empty()) return;
  std::vector<protocol::ChatLine> shown;
  for (const protocol::ChatLine& line : chat_history_) {
    if (!player->mutes(line.player)) shown.push_back(line);
  }
  if (shown.empty()) return;
  send_to(player, make_frame(protocol::encode_chat_history(id(), shown)), out);
}

void Table::push_event_history_to(const std::shared_ptr<Player>& player, Outbox& out) {
  if (!game_ || event_history_.empty()) return;
  send_to(
      player,
      make_frame(protocol::encode_event_history(id(), game_number_, seq_, event_history_.items())),
      out);
}

void Table::remember_events(std::int64_t seq, std::string_view events) {
  if (event_history_.size() < kEventHistory) {
    event_history_.push_back({seq, std::string(events)});
    return;
  }
  // Full: the oldest entry's string is reused for the newest (no allocation per move).
  protocol::EventEntry entry = std::move(event_history_.front());
  event_history_.pop_front();
  entry.seq = seq;
  entry.events.assign(events);
  event_history_.push_back(std::move(entry));
}

void Table::push_state_to(const std::shared_ptr<Player>& player, TableTime now, Outbox& out) {
  const auto to_act = game_->to_act();
  const auto seat = seat_of(*player);
  const Seat viewer = seat ? *seat : kSpectator;
  const bool acts = seat && std::find(to_act.begin(), to_act.end(), *seat) != to_act.end();
  const auto parts = protocol::state_frame_parts(id(), seq_, to_act, "[]", deadline(now));
  std::string text = frame_text(protocol::state_frame_size_hint(parts));
  protocol::write_state_frame(parts, *game_, viewer, acts, text);
  send_to(player, frame_from_text(std::move(text)), out);
}

// One view per connected seat and one shared spectator view, all written together (most of a
// view is the same for every seat); everything else in the frames is serialized once.
void Table::broadcast_state(std::string_view events, TableTime now, Outbox& out) {
  const auto to_act = game_->to_act();
  const auto parts = protocol::state_frame_parts(id(), seq_, to_act, events, deadline(now));
  view_seats_.clear();
  view_players_.clear();
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    const auto& occupant = seats_[s];
    // Views are written only for connected players: one who comes back gets the whole state
    // on resuming anyway.
    if (!occupant || !occupant->player || !occupant->connected) continue;
    view_seats_.push_back(static_cast<Seat>(s));
    view_players_.push_back(occupant->player);
  }
  if (!spectators_.empty()) {
    view_seats_.push_back(kSpectator);
    view_players_.push_back(nullptr);
  }
  const std::size_t hint = protocol::state_frame_size_hint(parts);
  view_texts_.resize(view_seats_.size());
  view_outs_.clear();
  for (std::string& text : view_texts_) {
    text = frame_text(hint);
    protocol::begin_state_frame(parts, text);
    view_outs_.push_back(&text);
  }
  game_->write_views(view_seats_, view_outs_);
  for (std::size_t i = 0; i < view_seats_.size(); ++i) {
    const Seat seat = view_seats_[i];
    const bool acts = std::find(to_act.begin(), to_act.end(), seat) != to_act.end();
    protocol::finish_state_frame(parts, *game_, seat, acts, view_texts_[i]);
    Frame frame = frame_from_text(std::move(view_texts_[i]));
    if (view_players_[i]) {
      send_to(view_players_[i], std::move(frame), out);
    } else {
      for (const auto& spectator : spectators_) send_to(spectator.player, frame, out);
    }
  }
  view_players_.clear();  // the players are not kept past the move
}

void Table::send_to_members(const Frame& frame, Outbox& out, const std::string& chat_author) {
  auto wants = [&](const Player& member) {
    return chat_author.empty() || !member.mutes(chat_author);
  };
  for (const auto& occupant : seats_) {
    if (occupant && occupant->player && wants(*occupant->player)) {
      send_to(occupant->player, frame, out);
    }
  }
  for (const auto& spectator : spectators_) {
    if (wants(*spectator.player)) send_to(spectator.player, frame, out);
  }
}

void Table::send_to(const std::shared_ptr<Player>& player, Frame frame, Outbox& out) {
  gate_.deliver(out, Delivery{player, nullptr, std::move(frame)});
}

void Table::reply(const Caller& caller, std::string_view message, Outbox& out) {
  if (!caller.connection) return;
  if (gate_.outstanding() > 0 && !caller.re.is_null()) {
    held_replies_.push_back({caller.connection, caller.re});
  }
  gate_.deliver(out, Delivery{nullptr, caller.connection, make_frame(message)});
}

void Table::reply_error(const Caller& caller, protocol::ErrorCode code, const std::string& message,
                        Outbox& out) {
  metrics_.count_reject(std::string(protocol::wire_name(code)));
  if (log_enabled(LogLevel::kDebug)) {
    const std::string re = caller.re.is_null() ? std::string() : caller.re.dump();
    log_debug("room " + id() + ": a request" + (re.empty() ? "" : " (re " + re + ")") + " of " +
                  caller.player->id() + " was refused (" + std::string(protocol::wire_name(code)) +
                  "): " + message,
              {.event = "request_refused", .room = id(), .player = caller.player->id(), .re = re});
  }
  reply(caller, protocol::encode_error(caller.re, code, message), out);
}

void Table::reply_refusal(const Caller& caller, const MoveResult& refusal, Outbox& out) {
  metrics_.count_reject(refusal.code());
  game_metrics_.moves_refused.fetch_add(1, std::memory_order_relaxed);
  if (log_enabled(LogLevel::kDebug)) {
    const std::string re = caller.re.is_null() ? std::string() : caller.re.dump();
    log_debug("room " + id() + ": a move" + (re.empty() ? "" : " (re " + re + ")") + " of " +
                  caller.player->id() + " was refused (" + refusal.code() + ")",
              {.event = "move_refused", .room = id(), .player = caller.player->id(), .re = re});
  }
  reply(caller, protocol::encode_error(caller.re, refusal.code(), refusal.message()), out);
}

void Table::reply_ok(const Caller& caller, std::optional<std::int64_t> seq, Outbox& out) {
  reply(caller, protocol::encode_ok(caller.re, seq), out);
}

}  // namespace parlor::server
