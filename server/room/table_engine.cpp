// An external game's moves and its engine (games/external/, server/engine/). The engine is a
// remote, fallible dependency, so no move of such a game is applied when it is made: the
// table checks it against the seat's open prompt, puts the engine call into the Outbox (the
// Room makes it off the strand), and applies the engine's answer as the move when it comes
// back, through the same record_move as every other game: stored, then acknowledged.
//
// One call is in flight at a time; moves that come meanwhile wait in order. While a call is
// in flight no bot moves and no turn clock runs. A call that fails (no answer, a 500, an
// answer that breaks the contract) pauses the room: its players are told, the operator's
// log names the engine, the room and the cause, and the table asks again with a growing
// pause until the engine answers; then play goes on.
#include <algorithm>

#include "server/log.h"
#include "server/room/table.h"

namespace parlor::server {

using protocol::ErrorCode;

namespace {
constexpr auto kFirstRetry = std::chrono::milliseconds(500);
constexpr auto kLongestRetry = std::chrono::seconds(30);
}  // namespace

external::ExternalGame* Table::external_game() const {
  return dynamic_cast<external::ExternalGame*>(game_.get());
}

bool Table::ask_engine(external::ExternalGame& game, Seat seat, Json move, MoveBy by,
                       const Caller* caller, Outbox& out) {
  if (engine_paused_) {
    if (caller) {
      reply_error(*caller, ErrorCode::kEngineUnavailable,
                  "the game's rules engine is not answering; the game is paused until it does",
                  out);
    }
    return false;
  }
  if (engine_wait_) {
    engine_queue_.push_back(
        {seat, std::move(move), by, caller ? std::optional<Caller>(*caller) : std::nullopt});
    return true;
  }
  MoveResult refusal = MoveResult::accepted();
  auto call = game.call_for_move(seat, move, refusal);
  if (!call) {
    if (caller) {
      reply_refusal(*caller, refusal, out);
    } else {
      log_error("room " + id() + ": " + (by == MoveBy::kBot ? "bot" : "timeout") +
                    " move for seat " + std::to_string(seat) + " was refused (" + refusal.code() +
                    ")",
                {.event = "stand_in_move_refused", .room = id()});
    }
    return false;
  }
  send_engine_call(std::move(*call), by, caller, /*probe=*/false, out);
  return true;
}

void Table::send_engine_call(external::EngineCall call, MoveBy by, const Caller* caller, bool probe,
                             Outbox& out) {
  // The seat has answered: its clock stops while the engine thinks, and so do the bots.
  turn_clock_.reset();
  bot_due_.reset();
  EngineWait wait;
  wait.id = ++engine_calls_;
  wait.call = call;
  wait.by = by;
  if (caller) wait.caller = *caller;
  wait.probe = probe;
  engine_wait_ = std::move(wait);
  out.engine_call = EngineRequest{engine_calls_, setup_.game->kind, std::move(call)};
}

void Table::continue_with_engine(Outbox& out) {
  if (status_ != RoomStatus::kPlaying || engine_busy() || gone_) return;
  auto* game = external_game();
  if (!game) return;
  if (auto call = game->waiting_call()) {
    send_engine_call(std::move(*call), MoveBy::kBot, nullptr, /*probe=*/false, out);
  }
}

void Table::engine_answered(std::uint64_t call_id, EngineReply reply, TableTime now, Outbox& out) {
  if (gone_ || !engine_wait_ || engine_wait_->id != call_id) return;
  EngineWait wait = std::move(*engine_wait_);
  engine_wait_.reset();
  if (status_ != RoomStatus::kPlaying) return;  // stopped meanwhile (a failed write)
  const Caller* caller = wait.caller ? &*wait.caller : nullptr;

  if (wait.probe) {
    if (reply.outcome != EngineReply::Outcome::kAnswered) {
      return engine_failed(std::move(wait), reply.cause.empty() ? reply.message : reply.cause, now,
                           out);
    }
    log_info("room " + id() + ": engine " + setup_.game->kind + " answers again; play resumes",
             {.event = "engine_recovered", .room = id()});
    engine_paused_ = false;
    engine_failures_ = 0;
    engine_retry_.reset();
    publish_room(out);
    arm_turn_clock(now);
    schedule_bots(now);
    return continue_with_engine(out);
  }
  if (reply.outcome == EngineReply::Outcome::kRefused && caller) {
    // The engine's rules refuse the player's answer: nothing changes, the prompt stays open.
    reply_refusal(*caller, MoveResult::rejected(reply.code, reply.message), out);
    arm_turn_clock(now);
    schedule_bots(now);
    return run_queued_moves(now, out);
  }
  if (reply.outcome == EngineReply::Outcome::kRefused) {
    // A call the server made itself (init, a null action, a bot's or the clock's answer
    // checked against the prompt) must not be refused.
    return engine_failed(std::move(wait),
                         "it refused the server's call (" + reply.code + ": " + reply.message + ")",
                         now, out);
  }
  if (reply.outcome == EngineReply::Outcome::kFailed) {
    return engine_failed(std::move(wait), reply.cause, now, out);
  }
  Json logged = external::ExternalGame::answered(wait.call, std::move(reply.body));
  MoveResult result = game_->apply(wait.call.seat, logged);
  if (!result.ok()) {
    return engine_failed(std::move(wait), "its answer breaks the contract: " + result.message(),
                         now, out);
  }
  if (engine_paused_) {
    log_info("room " + id() + ": engine " + setup_.game->kind + " answers again; play resumes",
             {.event = "engine_recovered", .room = id()});
    engine_paused_ = false;
    engine_failures_ = 0;
    engine_retry_.reset();
    publish_room(out);
  }
  record_move(wait.call.seat, std::move(logged), result, wait.by, caller, now, out);
  run_queued_moves(now, out);
}

void Table::run_queued_moves(TableTime now, Outbox& out) {
  while (!engine_queue_.empty() && !engine_busy() && status_ == RoomStatus::kPlaying) {
    QueuedMove next = std::move(engine_queue_.front());
    engine_queue_.pop_front();
    const Caller* caller = next.caller ? &*next.caller : nullptr;
    accept_move(next.seat, std::move(next.move), next.by, caller, now, out);
  }
}

void Table::engine_failed(EngineWait wait, const std::string& cause, TableTime now, Outbox& out) {
  log_error("room " + id() + ": engine " + setup_.game->kind + " failed: " + cause +
                "; the room is paused until it answers",
            {.event = "engine_failed", .room = id()});
  const std::string told =
      "the game's rules engine is not answering properly; the game is paused until it does";
  if (wait.caller) {
    reply_error(*wait.caller, ErrorCode::kEngineUnavailable, told + "; your move was not made",
                out);
  }
  for (const QueuedMove& queued : engine_queue_) {
    if (queued.caller) {
      reply_error(*queued.caller, ErrorCode::kEngineUnavailable, told + "; your move was not made",
                  out);
    }
  }
  engine_queue_.clear();
  const bool newly = !engine_paused_;
  engine_paused_ = true;
  turn_clock_.reset();
  bot_due_.reset();
  const auto backoff = std::min<std::chrono::milliseconds>(
      kLongestRetry, kFirstRetry * (1 << std::min(engine_failures_, 6)));
  ++engine_failures_;
  engine_retry_ = now.steady + backoff;
  if (newly) {
    send_to_members(
        make_frame(protocol::encode_error(nullptr, ErrorCode::kEngineUnavailable, told)), out);
    publish_room(out);
  }
}

void Table::retry_engine(Outbox& out) {
  engine_retry_.reset();
  if (!engine_paused_ || engine_wait_ || status_ != RoomStatus::kPlaying) return;
  auto* game = external_game();
  if (!game) return;
  // The call the game waits on, if any, is the best probe: its answer is applied at once.
  // Otherwise (a player's move failed) the engine's config says whether it answers.
  if (auto call = game->waiting_call()) {
    return send_engine_call(std::move(*call), MoveBy::kBot, nullptr, /*probe=*/false, out);
  }
  send_engine_call({false, "/config", "", external::kEngineSeat, nullptr}, MoveBy::kBot, nullptr,
                   /*probe=*/true, out);
}

}  // namespace parlor::server
