#include "server/room.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>

#include "server/config.h"
#include "server/log.h"
#include "server/metrics.h"

namespace parlor::server {

namespace net = boost::asio;

namespace {
constexpr std::size_t kHashEvery = 16;  // moves between stored state-hash checkpoints

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Room::Room(net::io_context& io, RoomSetup setup, const ServerConfig& config, Metrics& metrics,
           RoomHooks hooks)
    : strand_(net::make_strand(io)),
      setup_(std::move(setup)),
      config_(config),
      metrics_(metrics),
      hooks_(std::move(hooks)),
      seats_(static_cast<std::size_t>(setup_.seats)),
      bot_rng_(random_u64()),
      bot_timer_(strand_),
      turn_timer_(strand_) {
  created_ms_ = unix_ms();
  counted_open_ = true;  // the lobby counted this room for its creator when creating it
}

// ---- public entry points: each hops onto the strand -------------------------------------

void Room::join(Caller caller, std::optional<int> seat, bool creating) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller), seat, creating] {
    self->do_join(caller, seat, creating);
  });
}

void Room::watch(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->last_activity_ = Clock::now();
    if (self->seat_of(*caller.player)) {
      return self->reply_error(caller, "not_allowed", "you are seated in this room");
    }
    auto& list = self->spectators_;
    if (std::find(list.begin(), list.end(), caller.player) == list.end()) {
      list.push_back(caller.player);
      caller.player->add_room(self->id());
    }
    self->reply(caller, protocol::encode_watching(caller.re, self->id()));
    self->publish_room();
    if (self->game_) self->push_state_to(caller.player, "[]");
  });
}

void Room::leave(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->last_activity_ = Clock::now();
    auto& list = self->spectators_;
    auto spectator = std::find(list.begin(), list.end(), caller.player);
    if (spectator != list.end()) {
      list.erase(spectator);
    } else if (auto seat = self->seat_of(*caller.player)) {
      auto& occupant = self->seats_[static_cast<std::size_t>(*seat)];
      if (self->status_ == RoomStatus::kPlaying) {
        // The game goes on: a bot takes the seat over.
        occupant->player.reset();
        occupant->name = "Bot (" + occupant->name + ")";
        if (occupant->grace_timer) occupant->grace_timer->cancel();
        occupant->grace_timer.reset();
        occupant->bot = bots::make_strategy("greedy", self->setup_.game->kind);
        if (!occupant->bot) occupant->bot = bots::make_strategy("random", self->setup_.game->kind);
      } else {
        occupant.reset();
      }
    } else {
      return self->reply_error(caller, "not_seated", "you are not in room " + self->id());
    }
    caller.player->remove_room(self->id());
    self->reply(caller, protocol::encode_left(caller.re, self->id()));
    self->publish_room();
    self->schedule_bots();
  });
}

void Room::add_bot(Caller caller, int seat, std::string strategy) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller), seat,
                      strategy = std::move(strategy)] {
    self->last_activity_ = Clock::now();
    if (!self->is_member(*caller.player)) {
      return self->reply_error(caller, "not_seated", "only players in the room may add bots");
    }
    if (seat < 0 || seat >= self->setup_.seats) {
      return self->reply_error(
          caller, "bad_request",
          "seat must be between 0 and " + std::to_string(self->setup_.seats - 1));
    }
    auto& occupant = self->seats_[static_cast<std::size_t>(seat)];
    if (occupant)
      return self->reply_error(caller, "seat_taken", "seat " + std::to_string(seat) + " is taken");
    auto bot = bots::make_strategy(strategy, self->setup_.game->kind);
    if (!bot) {
      std::string names;
      for (const auto& n : bots::strategy_names(self->setup_.game->kind)) {
        names += (names.empty() ? "" : ", ") + n;
      }
      return self->reply_error(caller, "unknown_strategy",
                               "no bot strategy \"" + strategy.substr(0, 32) + "\"; try " + names);
    }
    occupant = Occupant{nullptr, "Bot " + std::to_string(seat + 1) + " (" + strategy + ")",
                        std::move(bot), nullptr};
    self->reply_ok(caller);
    self->publish_room();
  });
}

void Room::start(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->last_activity_ = Clock::now();
    if (!self->seat_of(*caller.player)) {
      return self->reply_error(caller, "not_seated", "only seated players may start the game");
    }
    if (self->status_ == RoomStatus::kPlaying) {
      return self->reply_error(caller, "already_started", "the game is already being played");
    }
    if (self->status_ == RoomStatus::kFrozen) {
      return self->reply_error(caller, "not_allowed", "this room was stopped and cannot be played");
    }
    const auto empty = std::count_if(self->seats_.begin(), self->seats_.end(),
                                     [](const auto& o) { return !o.has_value(); });
    if (empty > 0) {
      return self->reply_error(caller, "not_allowed",
                               std::to_string(empty) +
                                   " seat(s) are still empty; fill them with "
                                   "players or bots first");
    }
    // The ok waits, like the deal's pushes, until the new game's seed is stored.
    self->begin_game();
    self->reply_ok(caller);
  });
}

void Room::chat(Caller caller, std::string text) {
  net::post(
      strand_, [self = shared_from_this(), caller = std::move(caller), text = std::move(text)] {
        self->last_activity_ = Clock::now();
        if (!self->is_member(*caller.player)) {
          return self->reply_error(caller, "not_seated", "join or watch the room to chat");
        }
        self->reply_ok(caller);
        self->send_to_members(make_frame(
            protocol::encode_chat(self->id(), caller.player->id(), caller.player->name(), text)));
      });
}

// Moves are the hot path: dispatch runs the move at once when the room's strand is free (the
// usual case), saving a trip through the event loop's queue; otherwise it waits its turn.
void Room::move(Caller caller, Json move, std::optional<std::int64_t> seq) {
  net::dispatch(strand_,
                [self = shared_from_this(), caller = std::move(caller), move = std::move(move),
                 seq]() mutable { self->do_move(caller, std::move(move), seq); });
}

void Room::legal_moves(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    auto seat = self->seat_of(*caller.player);
    if (!seat) return self->reply_error(caller, "not_seated", "you have no seat in this room");
    if (!self->game_) return self->reply_error(caller, "not_started", "the game has not started");
    self->reply(caller, protocol::encode_legal_moves(caller.re, self->id(),
                                                     self->game_->legal_moves(*seat)));
  });
}

void Room::resume(std::shared_ptr<Player> player) {
  net::post(strand_, [self = shared_from_this(), player = std::move(player)] {
    if (!self->is_member(*player)) return;
    self->last_activity_ = Clock::now();
    self->player_presence_changed(*player);  // pushes the room to everyone, this player too
    if (self->game_) self->push_state_to(player, "[]");
  });
}

void Room::connection_changed(std::shared_ptr<Player> player) {
  net::post(strand_, [self = shared_from_this(), player = std::move(player)] {
    if (!self->is_member(*player)) return;
    self->last_activity_ = Clock::now();
    self->player_presence_changed(*player);
  });
}

void Room::player_presence_changed(const Player& player) {
  if (auto seat = seat_of(player)) {
    auto& occupant = *seats_[static_cast<std::size_t>(*seat)];
    if (player.connected()) {
      // Back: the player takes the seat over from its stand-in bot.
      if (occupant.grace_timer) occupant.grace_timer->cancel();
      occupant.grace_timer.reset();
      if (occupant.bot) {
        occupant.bot.reset();
        log_info("room " + id() + ": " + player.id() + " is back at seat " + std::to_string(*seat));
      }
    } else if (status_ == RoomStatus::kPlaying && !occupant.bot && !occupant.grace_timer) {
      occupant.grace_timer = std::make_shared<net::steady_timer>(strand_);
      occupant.grace_timer->expires_after(setup_.grace);
      const Seat s = *seat;
      occupant.grace_timer->async_wait([self = shared_from_this(), s, timer = occupant.grace_timer](
                                           boost::system::error_code ec) {
        if (ec) return;
        auto& o = self->seats_[static_cast<std::size_t>(s)];
        if (!o || o->grace_timer != timer || !o->player || o->player->connected()) return;
        o->grace_timer.reset();
        o->bot = bots::make_strategy("greedy", self->setup_.game->kind);
        if (!o->bot) o->bot = bots::make_strategy("random", self->setup_.game->kind);
        log_info("room " + self->id() + ": a bot plays seat " + std::to_string(s) +
                 " until its player returns");
        self->publish_room();
        self->schedule_bots();
      });
    }
  }
  publish_room();
}

void Room::sweep(Clock::time_point now, std::function<void(const std::string&)> remove) {
  net::post(strand_, [self = shared_from_this(), now, remove = std::move(remove)] {
    const bool finished_long_ago = self->status_ == RoomStatus::kFinished &&
                                   now - self->finished_at_ > self->config_.finished_room_retention;
    const bool abandoned = !self->any_human_connected() &&
                           now - self->last_activity_ > self->config_.empty_room_timeout;
    if (!finished_long_ago && !abandoned) return;
    self->bot_timer_.cancel();
    self->turn_timer_.cancel();
    for (auto& occupant : self->seats_) {
      if (occupant && occupant->player) occupant->player->remove_room(self->id());
    }
    for (auto& spectator : self->spectators_) spectator->remove_room(self->id());
    if (self->counted_open_ && self->setup_.creator) {
      self->counted_open_ = false;
      self->hooks_.open_rooms_changed(self->setup_.creator, -1);
    }
    if (self->setup_.store && self->status_ != RoomStatus::kFinished) {
      RoomRecord record = self->record();
      record.status = StoredRoomStatus::kAbandoned;
      self->setup_.store->save_room(std::move(record), nullptr);
    }
    log_info("room " + self->id() + " removed (" +
             (finished_long_ago ? "finished" : "nobody connected") + ")");
    remove(self->id());
  });
}

void Room::shutdown() {
  net::post(strand_, [self = shared_from_this()] {
    self->bot_timer_.cancel();
    self->turn_timer_.cancel();
    for (auto& occupant : self->seats_) {
      if (occupant && occupant->grace_timer) occupant->grace_timer->cancel();
    }
  });
}

// ---- on the strand -----------------------------------------------------------------------

void Room::do_join(const Caller& caller, std::optional<int> seat, bool creating) {
  last_activity_ = Clock::now();
  if (auto current = seat_of(*caller.player)) {
    if (seat && *seat != *current) {
      return reply_error(caller, "not_allowed",
                         "you already sit at seat " + std::to_string(*current) + " in this room");
    }
    reply(caller, protocol::encode_joined(caller.re, id(), *current));
    push_room_to(caller.player);
    if (game_) push_state_to(caller.player, "[]");
    return;
  }
  if (status_ != RoomStatus::kWaiting) {
    return reply_error(caller, "already_started", "the game in room " + id() + " has started");
  }
  if (seat && (*seat < 0 || *seat >= setup_.seats)) {
    return reply_error(caller, "bad_request",
                       "seat must be between 0 and " + std::to_string(setup_.seats - 1));
  }
  if (seat && seats_[static_cast<std::size_t>(*seat)]) {
    return reply_error(caller, "seat_taken", "seat " + std::to_string(*seat) + " is taken");
  }
  if (!seat) {
    for (int s = 0; s < setup_.seats; ++s) {
      if (!seats_[static_cast<std::size_t>(s)]) {
        seat = s;
        break;
      }
    }
    if (!seat) return reply_error(caller, "room_full", "every seat in room " + id() + " is taken");
  }
  // A spectator who takes a seat stops watching.
  std::erase(spectators_, caller.player);
  seats_[static_cast<std::size_t>(*seat)] =
      Occupant{caller.player, caller.player->name(), nullptr, nullptr};
  caller.player->add_room(id());
  reply(caller, creating ? protocol::encode_room_created(caller.re, id())
                         : protocol::encode_joined(caller.re, id(), *seat));
  publish_room();
}

void Room::do_move(const Caller& caller, Json move, std::optional<std::int64_t> seq) {
  last_activity_ = Clock::now();
  auto seat = seat_of(*caller.player);
  if (!seat) return reply_error(caller, "not_seated", "you have no seat in room " + id());
  if (status_ == RoomStatus::kWaiting) {
    return reply_error(caller, "not_started", "the game has not started");
  }
  if (status_ == RoomStatus::kFinished) {
    return reply_error(caller, "game_over", "the game is over; start a rematch to play again");
  }
  if (status_ == RoomStatus::kFrozen) {
    return reply_error(caller, "not_allowed", "this game was stopped and cannot be played on");
  }
  if (seq && *seq != seq_) {
    return reply_error(caller, "stale_state",
                       "you acted on state " + std::to_string(*seq) + " but the room is at " +
                           std::to_string(seq_));
  }
  MoveResult result = game_->apply(*seat, move);
  if (!result.ok()) return reply_error(caller, result.code(), result.message());
  ++moves_in_game_;
  ++seq_;
  persist_move(*seat, std::move(move));
  reply_ok(caller, seq_);
  after_accepted(result.events_text(), caller.received);
}

void Room::begin_game() {
  // A fixed (dev) seed still deals each rematch differently, reproducibly: game 1 uses the
  // seed itself, so a finished game's reveal never shows the next game's hands.
  seed_ = setup_.fixed_seed ? *setup_.fixed_seed + static_cast<std::uint64_t>(game_number_)
                            : random_u64();
  game_ = setup_.game->create(setup_.game_options, setup_.seats, seed_);
  if (status_ == RoomStatus::kFinished) {
    ++seq_;  // a rematch: seq keeps increasing
    if (!counted_open_ && setup_.creator) {
      counted_open_ = true;
      hooks_.open_rooms_changed(setup_.creator, +1);
    }
  }
  moves_in_game_ = 0;
  ++game_number_;
  start_seq_ = seq_;
  game_started_ms_ = unix_ms();
  finished_ms_.reset();
  status_ = RoomStatus::kPlaying;
  log_info("room " + id() + " started " + setup_.game->kind);
  // The new deal's seed must be durable before anyone sees the deal.
  persist_room(/*gate_frames=*/true);
  publish_room(/*persist=*/false);  // just saved
  after_accepted(R"([{"type":"start"}])", std::nullopt);
}

void Room::after_accepted(std::string_view events, std::optional<Clock::time_point> received) {
  arm_turn_clock();
  broadcast_state(events);
  if (received) {
    metrics_.moves_accepted.fetch_add(1, std::memory_order_relaxed);
    metrics_.observe_move_latency(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - *received).count());
  }
  if (game_->finished()) return finish_game();
  schedule_bots();
}

std::optional<protocol::TurnDeadline> Room::deadline() const {
  if (!turn_deadline_) return std::nullopt;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*turn_deadline_ - Clock::now());
  return protocol::TurnDeadline{
      std::chrono::duration_cast<std::chrono::milliseconds>(turn_deadline_wall_->time_since_epoch())
          .count(),
      std::max<std::int64_t>(0, left.count())};
}

void Room::arm_turn_clock() {
  if (setup_.turn_seconds.count() == 0) return;  // no clock: nothing to cancel or arm
  turn_timer_.cancel();
  turn_deadline_.reset();
  turn_deadline_wall_.reset();
  if (status_ != RoomStatus::kPlaying) return;
  bool human_to_act = false;
  for (Seat s : game_->to_act()) {
    if (!seats_[static_cast<std::size_t>(s)]->bot) human_to_act = true;
  }
  if (!human_to_act) return;
  turn_deadline_ = Clock::now() + setup_.turn_seconds;
  turn_deadline_wall_ = std::chrono::system_clock::now() + setup_.turn_seconds;
  turn_timer_.expires_at(*turn_deadline_);
  turn_timer_.async_wait(
      [self = shared_from_this(), armed_at = seq_](boost::system::error_code ec) {
        if (!ec) self->on_turn_timeout(armed_at);
      });
}

// Runs on the strand, like every move: whichever of the late move and the timeout comes
// first wins, and the other meets a changed seq (stale_state) or another turn.
void Room::on_turn_timeout(std::int64_t armed_at_seq) {
  if (status_ != RoomStatus::kPlaying || seq_ != armed_at_seq) return;
  for (Seat s : game_->to_act()) {
    if (seats_[static_cast<std::size_t>(s)]->bot) continue;
    const Json move = timeout_move(s);
    MoveResult result = game_->apply(s, move);
    if (!result.ok()) {
      log_error("room " + id() + ": timeout move for seat " + std::to_string(s) + " was refused (" +
                result.code() + ")");
      return;
    }
    ++moves_in_game_;
    ++seq_;
    persist_move(s, move);
    Json events = result.events();
    events.push_back({{"type", "timeout"}, {"seat", s}});
    after_accepted(protocol::to_wire(events), std::nullopt);
    return;
  }
}

Json Room::timeout_move(Seat seat) {
  const Json prompt = game_->prompt(seat);
  if (setup_.on_timeout == "bot") {
    auto strategy = bots::make_strategy("greedy", setup_.game->kind);
    if (!strategy) strategy = bots::make_strategy("random", setup_.game->kind);
    return strategy->choose(game_->view(seat), prompt, bot_rng_);
  }
  // "pass": pass when the game allows it, else the first legal move the game lists.
  if (prompt.contains("legal") && !prompt["legal"].empty()) {
    for (const Json& move : prompt["legal"]) {
      if (move.value("action", "") == "pass") return move;
    }
    return prompt["legal"][0];
  }
  const Json& choose = prompt["choose"];
  Json picked = Json::array();
  for (std::size_t i = 0; i < choose["count"].get<std::size_t>(); ++i) {
    picked.push_back(choose["from"][i]);
  }
  return {{"action", choose["action"]}, {choose["field"].get<std::string>(), picked}};
}

void Room::finish_game() {
  status_ = RoomStatus::kFinished;
  finished_ms_ = unix_ms();
  turn_timer_.cancel();
  turn_deadline_.reset();
  finished_at_ = Clock::now();
  send_to_members(make_frame(protocol::encode_game_over(id(), game_->result())));
  if (counted_open_ && setup_.creator) {
    counted_open_ = false;
    hooks_.open_rooms_changed(setup_.creator, -1);
  }
  log_info("room " + id() + " finished after " + std::to_string(moves_in_game_) + " moves");
  publish_room();
}

void Room::schedule_bots() {
  if (status_ != RoomStatus::kPlaying || bot_timer_armed_) return;
  bool bot_to_act = false;
  for (Seat s : game_->to_act()) {
    if (seats_[static_cast<std::size_t>(s)]->bot) bot_to_act = true;
  }
  if (!bot_to_act) return;
  bot_timer_armed_ = true;
  bot_timer_.expires_after(config_.bot_delay);
  bot_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    self->bot_timer_armed_ = false;
    if (!ec) self->run_bots();
  });
}

void Room::run_bots() {
  if (status_ != RoomStatus::kPlaying) return;
  for (Seat s : game_->to_act()) {
    auto& occupant = seats_[static_cast<std::size_t>(s)];
    if (!occupant->bot) continue;
    if (bot_move(s, *occupant->bot)) return;  // after_accepted re-schedules the next bot
    occupant->bot.reset();
  }
}

bool Room::bot_move(Seat seat, bots::Strategy& strategy) {
  // The bot sees what its seat sees, nothing more.
  const Json move = strategy.choose(game_->view(seat), game_->prompt(seat), bot_rng_);
  MoveResult result = game_->apply(seat, move);
  if (!result.ok()) {
    log_error("room " + id() + ": bot at seat " + std::to_string(seat) + " made an illegal move (" +
              result.code() + "); stopping it");
    return false;
  }
  ++moves_in_game_;
  ++seq_;
  persist_move(seat, move);
  after_accepted(result.events_text(), std::nullopt);
  return true;
}

// ---- membership and pushes -------------------------------------------------------------

std::optional<int> Room::seat_of(const Player& player) const {
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    if (seats_[s] && seats_[s]->player.get() == &player) return static_cast<int>(s);
  }
  return std::nullopt;
}

bool Room::is_member(const Player& player) const {
  if (seat_of(player)) return true;
  return std::any_of(spectators_.begin(), spectators_.end(),
                     [&](const auto& p) { return p.get() == &player; });
}

bool Room::any_human_connected() const {
  for (const auto& occupant : seats_) {
    if (occupant && occupant->player && occupant->player->connected()) return true;
  }
  return std::any_of(spectators_.begin(), spectators_.end(),
                     [](const auto& p) { return p->connected(); });
}

protocol::RoomSummary Room::summary() const {
  protocol::RoomSummary out;
  out.room = id();
  out.kind = setup_.game->kind;
  out.status = status_;
  out.spectators = static_cast<int>(spectators_.size());
  out.options = setup_.game_options;
  for (const auto& occupant : seats_) {
    if (!occupant) {
      out.seats.emplace_back(std::nullopt);
      continue;
    }
    out.seats.emplace_back(protocol::SeatSummary{
        occupant->player ? occupant->player->id() : std::string(), occupant->name,
        occupant->bot != nullptr,
        occupant->bot != nullptr || (occupant->player && occupant->player->connected())});
  }
  return out;
}

void Room::publish_room(bool persist) {
  if (persist) persist_room();
  auto shared = std::make_shared<const protocol::RoomSummary>(summary());
  const protocol::RoomPush push(*shared);
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    if (seats_[s] && seats_[s]->player) {
      deliver(seats_[s]->player, make_frame(push.for_viewer(static_cast<int>(s))));
    }
  }
  if (!spectators_.empty()) {
    const Frame frame = make_frame(push.for_viewer(std::nullopt));
    for (const auto& spectator : spectators_) deliver(spectator, frame);
  }
  hooks_.summary_changed(id(), shared);
}

void Room::push_room_to(const std::shared_ptr<Player>& player) {
  deliver(player, make_frame(protocol::encode_room(summary(), seat_of(*player))));
}

Frame Room::state_frame(const protocol::StateFrameParts& parts, Seat viewer, bool acts) const {
  std::string text = state_text_start(parts);
  game_->write_view(viewer, text);
  return state_text_finish(std::move(text), parts, viewer, acts);
}

std::string Room::state_text_start(const protocol::StateFrameParts& parts) {
  std::string text = frame_text(parts.head.size() + parts.middle.size() + parts.tail.size() + 2048);
  text += parts.head;
  return text;
}

Frame Room::state_text_finish(std::string text, const protocol::StateFrameParts& parts, Seat viewer,
                              bool acts) const {
  text += parts.middle;
  if (acts) {
    game_->write_prompt(viewer, text);
  } else {
    text += "null";
  }
  text += parts.tail;
  return frame_from_text(std::move(text));
}

void Room::push_state_to(const std::shared_ptr<Player>& player, std::string_view events) {
  const auto to_act = game_->to_act();
  const auto seat = seat_of(*player);
  const Seat viewer = seat ? *seat : kSpectator;
  const bool acts = seat && std::find(to_act.begin(), to_act.end(), *seat) != to_act.end();
  const auto parts = protocol::state_frame_parts(id(), seq_, to_act, events, deadline());
  deliver(player, state_frame(parts, viewer, acts));
}

// One view per connected seat, one shared spectator view, all written together (most of a
// view is the same for every seat); everything else in the frames is serialized once.
void Room::broadcast_state(std::string_view events) {
  const auto to_act = game_->to_act();
  const auto parts = protocol::state_frame_parts(id(), seq_, to_act, events, deadline());
  viewers_.clear();
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    const auto& occupant = seats_[s];
    if (!occupant || !occupant->player) continue;
    // Views are written only for connected players. A player who reconnects while this
    // frame is held for the store gets the whole state on resuming anyway.
    auto live = occupant->player->connection();
    if (!live) continue;
    viewers_.push_back({static_cast<Seat>(s), std::move(live)});
  }
  if (!spectators_.empty()) viewers_.push_back({kSpectator, nullptr});
  view_seats_.clear();
  view_texts_.clear();
  view_outs_.clear();
  for (const Viewer& viewer : viewers_) {
    view_seats_.push_back(viewer.seat);
    view_texts_.push_back(state_text_start(parts));
  }
  for (std::string& text : view_texts_) view_outs_.push_back(&text);
  game_->write_views(view_seats_, view_outs_);
  for (std::size_t i = 0; i < viewers_.size(); ++i) {
    const Seat seat = viewers_[i].seat;
    const bool acts = std::find(to_act.begin(), to_act.end(), seat) != to_act.end();
    const Frame frame = state_text_finish(std::move(view_texts_[i]), parts, seat, acts);
    if (viewers_[i].connection) {
      deliver(viewers_[i].connection, frame);
    } else {
      for (const auto& spectator : spectators_) deliver(spectator, frame);
    }
  }
  viewers_.clear();  // the connections are not kept past the move
}

void Room::send_to_members(const Frame& frame) {
  for (const auto& occupant : seats_) {
    if (occupant && occupant->player) deliver(occupant->player, frame);
  }
  for (const auto& spectator : spectators_) deliver(spectator, frame);
}

void Room::reply(const Caller& caller, std::string frame) {
  if (caller.connection) deliver(caller.connection, make_frame(std::move(frame)));
}

void Room::reply_error(const Caller& caller, std::string_view code, const std::string& message) {
  metrics_.count_reject(std::string(code));
  reply(caller, protocol::encode_error(caller.re, code, message));
}

void Room::reply_ok(const Caller& caller, std::optional<std::int64_t> seq) {
  reply(caller, protocol::encode_ok(caller.re, seq));
}

// ---- durability ------------------------------------------------------------------------

void Room::deliver(const std::shared_ptr<Player>& player, Frame frame) {
  if (gating_writes_ > 0) {
    held_.push_back({player, nullptr, std::move(frame)});
  } else {
    player->send(frame);
  }
}

void Room::deliver(const std::shared_ptr<Connection>& connection, Frame frame) {
  if (gating_writes_ > 0) {
    held_.push_back({nullptr, connection, std::move(frame)});
  } else {
    connection->send(std::move(frame));
  }
}

void Room::persist_move(Seat seat, Json move) {
  if (!setup_.store) return;
  ++gating_writes_;
  MoveRecord record{id(), game_number_, seq_, seat, std::move(move), unix_ms(), std::nullopt};
  // A checkpoint every few moves and at the end lets recovery notice an engine that no
  // longer replays the log identically.
  if (moves_in_game_ % kHashEvery == 0 || game_->finished())
    record.state_hash = game_->state_hash();
  setup_.store->append_move(std::move(record), [weak = weak_from_this()](bool ok) {
    // Called on the store's writer thread: hop back onto the strand.
    if (auto self = weak.lock()) {
      net::post(self->strand_, [self, ok] { self->on_durable(ok); });
    }
  });
}

void Room::persist_room(bool gate_frames) {
  if (!setup_.store) return;
  if (!gate_frames) {
    setup_.store->save_room(record(), [room = id()](bool ok) {
      if (!ok) log_error("room " + room + ": the room record could not be saved");
    });
    return;
  }
  ++gating_writes_;
  setup_.store->save_room(record(), [weak = weak_from_this()](bool ok) {
    if (auto self = weak.lock()) net::post(self->strand_, [self, ok] { self->on_durable(ok); });
  });
}

void Room::on_durable(bool ok) {
  --gating_writes_;
  if (!ok && status_ == RoomStatus::kPlaying) {
    // Never acknowledge what is not stored: the game stops here, visibly.
    log_error("room " + id() + ": a move could not be stored; the game is stopped");
    held_.clear();
    status_ = RoomStatus::kFrozen;
    turn_timer_.cancel();
    bot_timer_.cancel();
    send_to_members(make_frame(protocol::encode_error(
        nullptr, "internal_error", "this game could not be saved and has been stopped")));
    publish_room();
    return;
  }
  if (gating_writes_ > 0) return;
  while (!held_.empty()) {
    HeldFrame held = std::move(held_.front());
    held_.pop_front();
    if (held.player) {
      held.player->send(held.frame);
    } else {
      held.connection->send(std::move(held.frame));
    }
  }
}

RoomRecord Room::record() const {
  RoomRecord out;
  out.id = id();
  out.kind = setup_.game->kind;
  out.seats = setup_.seats;
  out.game_options = setup_.game_options;
  out.room_options = {{"private", setup_.is_private},
                      {"grace", setup_.grace.count()},
                      {"turn_seconds", setup_.turn_seconds.count()},
                      {"on_timeout", setup_.on_timeout}};
  if (setup_.fixed_seed) out.room_options["seed"] = *setup_.fixed_seed;
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
  switch (status_) {
    case RoomStatus::kWaiting:
      out.status = StoredRoomStatus::kWaiting;
      break;
    case RoomStatus::kPlaying:
      out.status = StoredRoomStatus::kPlaying;
      break;
    case RoomStatus::kFinished:
    case RoomStatus::kFrozen:
      out.status = StoredRoomStatus::kFinished;
      break;
  }
  out.created_ms = created_ms_;
  out.finished_ms = finished_ms_;
  out.game_number = game_number_;
  out.seed = seed_;
  out.start_seq = start_seq_;
  out.game_started_ms = game_started_ms_;
  return out;
}

bool Room::restore(const LoadedRoom& stored, Identity& identity) {
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
    Occupant occupant{nullptr, seat->name, nullptr, nullptr};
    if (seat->player_id) {
      occupant.player = identity.find(*seat->player_id);
      if (occupant.player) occupant.player->add_room(id());
    }
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
  game_ = setup_.game->create(setup_.game_options, setup_.seats, seed_);
  for (const MoveRecord& m : stored.moves) {
    MoveResult result = game_->apply(m.seat, m.move);
    std::string broken;
    if (!result.ok()) {
      broken = "is refused (" + result.code() + ")";
    } else if (m.state_hash && *m.state_hash != game_->state_hash()) {
      broken = "reaches a different state";
    }
    if (!broken.empty()) {
      log_error("room " + id() + ": stored move " + std::to_string(m.seq) + " " + broken +
                " under this engine; the room is frozen");
      status_ = RoomStatus::kFrozen;
      return false;
    }
    ++moves_in_game_;
  }
  if (game_->finished()) {
    status_ = RoomStatus::kFinished;
    finished_ms_ = unix_ms();
    finished_at_ = Clock::now();  // retention counts from the recovery
    counted_open_ = false;
  }
  return true;
}

// Called once the room is registered: timers and pushes for the recovered state.
void Room::resume_after_restore() {
  net::post(strand_, [self = shared_from_this()] {
    if (self->counted_open_ && self->setup_.creator)
      self->hooks_.open_rooms_changed(self->setup_.creator, +1);
    if (self->status_ != RoomStatus::kPlaying) return self->publish_room();
    // Everyone is disconnected after a restart: the grace periods start now, and the turn
    // clock restarts in full so nobody loses time to the outage.
    for (auto& occupant : self->seats_) {
      if (occupant && occupant->player) self->player_presence_changed(*occupant->player);
    }
    self->arm_turn_clock();
    self->schedule_bots();
  });
}

}  // namespace parlor::server
