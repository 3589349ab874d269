// Host controls and moderation: the creator empties a seat or locks a waiting room, and an
// administrator closes a room. Setup changes go through publish_room, which stores the room
// record (its occupants and room options, `locked` among them), so a restarted server
// restores them as it restores joins and bots.
#include "server/log.h"
#include "server/room/table.h"

namespace parlor::server {

using protocol::ErrorCode;

bool Table::host_may_change_setup(const Caller& caller, std::string_view what, Outbox& out) {
  // Rooms quick play opened have no host: nobody may change them.
  if (!setup_.creator || setup_.creator != caller.player) {
    reply_error(caller, ErrorCode::kNotAllowed,
                "only the creator of room " + id() + " may " + std::string(what), out);
    return false;
  }
  if (status_ != RoomStatus::kWaiting) {
    reply_error(caller, ErrorCode::kAlreadyStarted,
                "the game in room " + id() + " has started; only a waiting room's setup changes",
                out);
    return false;
  }
  return true;
}

void Table::remove_seat(const Caller& caller, int seat, TableTime now, Outbox& out) {
  last_activity_ = now.steady;
  if (!host_may_change_setup(caller, "remove a seat", out)) return;
  if (seat < 0 || seat >= setup_.seats) {
    return reply_error(caller, ErrorCode::kBadRequest,
                       "seat must be between 0 and " + std::to_string(setup_.seats - 1), out);
  }
  auto& occupant = seats_[static_cast<std::size_t>(seat)];
  if (!occupant) {
    return reply_error(caller, ErrorCode::kSeatEmpty,
                       "seat " + std::to_string(seat) + " of room " + id() + " is empty", out);
  }
  if (occupant->player == caller.player) {
    return reply_error(caller, ErrorCode::kNotAllowed,
                       "that is your own seat; leave_room gives it up", out);
  }
  if (const std::shared_ptr<Player> removed = occupant->player) {
    // Told before the seat goes, so the push reaches them; the room push that follows no
    // longer does.
    send_to(removed,
            make_frame(protocol::encode_seat_removed(id(), seat,
                                                     "the room's creator removed you from it")),
            out);
    out.memberships.push_back({removed, false});
  }
  log_info("room " + id() + ": seat " + std::to_string(seat) + " (" + occupant->name +
               ") removed by its creator",
           {.event = "seat_removed", .room = id(), .player = caller.player->id()});
  occupant.reset();
  reply_ok(caller, std::nullopt, out);
  publish_room(out);
}

void Table::set_locked(const Caller& caller, bool locked, TableTime now, Outbox& out) {
  last_activity_ = now.steady;
  if (!host_may_change_setup(caller, locked ? "lock it" : "unlock it", out)) return;
  reply_ok(caller, std::nullopt, out);
  if (setup_.options.locked == locked) return;  // as asked already: nothing changes
  setup_.options.locked = locked;
  publish_room(out);
}

void Table::close(std::string_view reason, Outbox& out) {
  bot_due_.reset();
  turn_clock_.reset();
  const Frame closed = make_frame(protocol::encode_room_closed(id(), reason));
  send_to_members(closed, out);
  for (auto& occupant : seats_) {
    if (!occupant) continue;
    occupant->grace.reset();
    if (occupant->player) out.memberships.push_back({occupant->player, false});
  }
  for (const auto& spectator : spectators_) {
    out.memberships.push_back({spectator.player, false});
    out.watchers.push_back({spectator.player->id(), false});
  }
  count_open(false, out);
  // Kept as abandoned: never loaded again by a restart, its replay kept as any room's.
  if (setup_.persistent && !store_stalled_ && status_ != RoomStatus::kFinished) {
    RoomRecord abandoned = record();
    abandoned.status = StoredRoomStatus::kAbandoned;
    gate_.write(out, {std::move(abandoned), false});
  }
  log_info("room " + id() + " closed by an administrator", {.event = "room_closed", .room = id()});
  out.remove = true;
}

}  // namespace parlor::server
