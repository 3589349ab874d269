#include "server/room/room.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "server/config.h"
#include "server/engine/engine_directory.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/room/bot_pool.h"

namespace parlor::server {

namespace net = boost::asio;

namespace {
TableTimings timings_of(const ServerConfig& config) {
  return {config.bot_delay, config.empty_room_timeout, config.finished_room_retention};
}

TableSetup kept_by(TableSetup setup, const Store* store) {
  setup.persistent = store != nullptr;
  return setup;
}
// Outboxes are reused from call to call, so that a move allocates no vectors: a few per I/O
// thread rather than one per room, which would keep its largest call's capacity while the
// room sits idle. A call that runs another room's inside it takes another outbox.
class OutboxPool {
 public:
  static std::unique_ptr<Outbox> take() {
    auto& free = pool();
    if (free.empty()) return std::make_unique<Outbox>();
    auto out = std::move(free.back());
    free.pop_back();
    return out;
  }
  static void give_back(std::unique_ptr<Outbox> out) {
    auto& free = pool();
    if (free.size() >= kKept) return;
    out->clear();
    free.push_back(std::move(out));
  }

 private:
  static constexpr std::size_t kKept = 4;
  static std::vector<std::unique_ptr<Outbox>>& pool() {
    thread_local std::vector<std::unique_ptr<Outbox>> free;
    return free;
  }
};

// How many tables this thread is running, one inside another: a store write refused at once
// (a closed store) completes inside the run that made it, where the table is not free.
thread_local int t_tables_running = 0;

}  // namespace

Room::Room(net::io_context& io, TableSetup setup, Store* store, const ServerConfig& config,
           Metrics& metrics, RoomHooks hooks)
    : id_(setup.id),
      is_private_(setup.options.is_private),
      creator_(setup.creator),
      strand_(net::make_strand(io)),
      table_(kept_by(std::move(setup), store), timings_of(config), metrics, random_u64(),
             TableTime::now()),
      store_(store),
      metrics_(metrics),
      hooks_(std::move(hooks)),
      timer_(strand_) {}

template <class Step>
void Room::run(Step&& step, bool deadlines_may_change) {
  const std::lock_guard lock(table_mutex_);
  run_locked(std::forward<Step>(step), deadlines_may_change);
}

template <class Step>
void Room::run_locked(Step&& step, bool deadlines_may_change) {
  struct Running {
    Running() { ++t_tables_running; }
    ~Running() { --t_tables_running; }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;
  } running;
  std::unique_ptr<Outbox> out = OutboxPool::take();
  // A step that takes no time (a write made durable) costs no clock reads.
  if constexpr (std::is_invocable_v<Step&, Table&, Outbox&>) {
    step(table_, *out);
  } else {
    step(table_, TableTime::now(), *out);
  }
  carry_out(*out, deadlines_may_change);
  OutboxPool::give_back(std::move(out));
}

// ---- entry points: each hops onto the strand ---------------------------------------------

void Room::join(Caller caller, std::optional<int> seat, bool creating) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller), seat, creating] {
    self->run([&](Table& table, TableTime now, Outbox& out) {
      table.join(caller, seat, creating, now, out);
    });
  });
}

void Room::watch(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->run([&](Table& table, TableTime now, Outbox& out) { table.watch(caller, now, out); });
  });
}

void Room::leave(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->run([&](Table& table, TableTime now, Outbox& out) { table.leave(caller, now, out); });
  });
}

void Room::add_bot(Caller caller, int seat, std::string strategy) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller), seat,
                      strategy = std::move(strategy)] {
    self->run([&](Table& table, TableTime now, Outbox& out) {
      table.add_bot(caller, seat, strategy, now, out);
    });
  });
}

void Room::start(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->run([&](Table& table, TableTime now, Outbox& out) { table.start(caller, now, out); });
  });
}

void Room::chat(Caller caller, std::string text) {
  net::post(
      strand_, [self = shared_from_this(), caller = std::move(caller), text = std::move(text)] {
        self->run(
            [&](Table& table, TableTime now, Outbox& out) { table.chat(caller, text, now, out); });
      });
}

// Moves are the hot path: dispatch runs the move at once when the room's strand is free (the
// usual case), saving a trip through the event loop's queue; otherwise it waits its turn.
void Room::move(Caller caller, Json move, std::optional<std::int64_t> seq,
                std::string_view move_text) {
  net::dispatch(strand_,
                [self = shared_from_this(), caller = std::move(caller), move = std::move(move), seq,
                 text = store_ ? std::string(move_text) : std::string()]() mutable {
                  self->run([&](Table& table, TableTime now, Outbox& out) {
                    table.move(caller, std::move(move), seq, now, out, std::move(text));
                  });
                });
}

void Room::legal_moves(Caller caller) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller)] {
    self->run([&](Table& table, TableTime, Outbox& out) { table.legal_moves(caller, out); });
  });
}

void Room::remove_seat(Caller caller, int seat) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller), seat] {
    self->run([&](Table& table, TableTime now, Outbox& out) {
      table.remove_seat(caller, seat, now, out);
    });
  });
}

void Room::set_locked(Caller caller, bool locked) {
  net::post(strand_, [self = shared_from_this(), caller = std::move(caller), locked] {
    self->run([&](Table& table, TableTime now, Outbox& out) {
      table.set_locked(caller, locked, now, out);
    });
  });
}

void Room::close(std::string reason) {
  net::post(strand_, [self = shared_from_this(), reason = std::move(reason)] {
    self->run([&](Table& table, TableTime, Outbox& out) { table.close(reason, out); });
  });
}

void Room::resume(std::shared_ptr<Player> player) {
  net::post(strand_, [self = shared_from_this(), player = std::move(player)] {
    self->run([&](Table& table, TableTime now, Outbox& out) {
      table.presence_changed(player, player->connected(), /*resumed=*/true, now, out);
    });
  });
}

void Room::connection_changed(std::shared_ptr<Player> player) {
  net::post(strand_, [self = shared_from_this(), player = std::move(player)] {
    self->run([&](Table& table, TableTime now, Outbox& out) {
      table.presence_changed(player, player->connected(), /*resumed=*/false, now, out);
    });
  });
}

void Room::renamed(std::shared_ptr<Player> player) {
  net::post(strand_, [self = shared_from_this(), player = std::move(player)] {
    self->run([&](Table& table, TableTime, Outbox& out) { table.renamed(*player, out); });
  });
}

void Room::sweep() {
  net::post(strand_, [self = shared_from_this()] {
    self->run([&](Table& table, TableTime now, Outbox& out) { table.sweep(now, out); });
  });
}

void Room::let_go(std::string new_node) {
  net::post(strand_, [self = shared_from_this(), new_node = std::move(new_node)] {
    self->run([&](Table& table, TableTime, Outbox& out) { table.let_go(new_node, out); });
  });
}

void Room::shutdown() {
  net::post(strand_, [self = shared_from_this()] {
    const std::lock_guard lock(self->table_mutex_);
    self->stopped_ = true;
    self->timer_.cancel();
    self->timer_at_.reset();
  });
}

bool Room::restore(const LoadedRoom& stored, Identity& identity,
                   const std::vector<std::string>& spectators) {
  const bool identical = table_.restore(
      stored, [&](const std::string& player_id) { return identity.find(player_id); },
      TableTime::now());
  std::vector<std::shared_ptr<Player>> watching;
  for (const std::string& id : spectators) {
    if (auto player = identity.find(id)) watching.push_back(std::move(player));
  }
  table_.restore_spectators(watching);
  // The members know the room before anyone can reach the server or the room: a player who
  // says hello (or is invited) the moment it is registered resumes it from their room list.
  for (const auto& member : table_.members()) member->add_room(id_);
  return identical;
}

std::shared_ptr<const protocol::RoomSummary> Room::restored_summary() const {
  return std::make_shared<const protocol::RoomSummary>(table_.summary());
}

void Room::resume_after_restore() {
  net::post(strand_, [self = shared_from_this()] {
    self->run(
        [&](Table& table, TableTime now, Outbox& out) { table.resume_after_restore(now, out); });
  });
}

// ---- carrying out what the table decided -------------------------------------------------

void Room::carry_out(Outbox& out, bool deadlines_may_change) {
  // Writes first, in the table's order: the store completes them in that order.
  for (StoreWrite& w : out.writes) write(std::move(w));
  for (const MembershipChange& change : out.memberships) {
    if (change.member) {
      change.player->add_room(id_);
    } else {
      change.player->remove_room(id_);
    }
  }
  if (hooks_.watcher_changed) {
    for (const WatcherChange& change : out.watchers) hooks_.watcher_changed(id_, change);
  }
  if (out.open_rooms_delta != 0 && creator_) {
    hooks_.open_rooms_changed(creator_, out.open_rooms_delta);
  }
  if (out.summary) hooks_.summary_changed(id_, std::move(out.summary));
  for (Delivery& delivery : out.deliveries) {
    if (delivery.player) {
      delivery.player->send(delivery.frame);
    } else {
      delivery.connection->send(std::move(delivery.frame));
    }
  }
  // Let go of the frames and players now, not at the next call: a frame is freed by the last
  // connection that wrote it, on this thread, while it is still in the cache.
  out.deliveries.clear();
  if (out.accepted_move_received) {
    metrics_.moves_accepted.add();
    metrics_.observe_move_latency(std::chrono::duration_cast<std::chrono::microseconds>(
                                      Clock::now() - *out.accepted_move_received)
                                      .count());
  }
  if (out.store_stalled && hooks_.stalled) hooks_.stalled(id_, this);
  if (out.engine_call) call_engine(std::move(*out.engine_call));
  if (out.bot_think) think(std::move(*out.bot_think));
  if (out.remove) {
    stopped_ = true;
    timer_.cancel();
    timer_at_.reset();
    if (hooks_.removed) hooks_.removed(id_, this);
    return;
  }
  if (deadlines_may_change) sync_timer();
}

void Room::write(StoreWrite w) {
  if (!store_) return;
  DurableCallback done;
  if (w.gating) {
    done = [weak = weak_from_this()](WriteResult result) {
      if (auto self = weak.lock()) self->durable(result);
    };
  } else {
    done = [weak = weak_from_this(), room = id_](WriteResult result) {
      if (result == WriteResult::kFailed) {
        log_error("room " + room + ": a record of the room could not be saved",
                  {.event = "room_save_failed", .room = room});
      } else if (result == WriteResult::kFenced) {
        if (auto self = weak.lock()) self->let_go("");
      }
    };
  }
  if (auto* move = std::get_if<MoveRecord>(&w.record)) {
    store_->append_move(std::move(*move), std::move(done));
  } else if (auto* rated = std::get_if<RatedGameRecord>(&w.record)) {
    store_->record_rated_game(std::move(*rated), std::move(done));
  } else {
    store_->save_room(std::move(std::get<RoomRecord>(w.record)), std::move(done));
  }
}

void Room::durable(WriteResult result) {
  const auto step = [result](Table& table, Outbox& out) { table.durable(result, out); };
  // A write made durable only lets held frames go: the table's deadlines are as they were,
  // and the timer need not be looked at (a failed or fenced write changes them).
  const bool deadlines_may_change = result != WriteResult::kDurable;
  // Only an event loop's thread at the end of its pass, outside any table: the store's
  // writer thread (or PostgreSQL's) never runs a room, and a thread inside a table's run does
  // not start another run of it. Completions come one at a time, in commit order, so
  // durables_posted_ cannot rise between its check and the run.
  if (EndOfPassCommits::on_this_thread() && t_tables_running == 0 &&
      durables_posted_.load(std::memory_order_acquire) == 0 && table_mutex_.try_lock()) {
    const std::lock_guard lock(table_mutex_, std::adopt_lock);
    run_locked(step, deadlines_may_change);
    return;
  }
  durables_posted_.fetch_add(1, std::memory_order_relaxed);
  net::post(strand_, [self = shared_from_this(), step, deadlines_may_change] {
    self->run(step, deadlines_may_change);
    self->durables_posted_.fetch_sub(1, std::memory_order_release);
  });
}

void Room::call_engine(EngineRequest request) {
  // Timed here, around the whole call (the wait for a connection and retries included): what
  // the room waits, which is what a player feels.
  auto answered = [weak = weak_from_this(), id = request.id, metrics = &table_.game_metrics(),
                   sent = Clock::now()](EngineReply reply) {
    const std::chrono::duration<double> took = Clock::now() - sent;
    metrics->engine_call_seconds.observe(took.count());
    if (reply.outcome == EngineReply::Outcome::kFailed) {
      metrics->engine_call_failures.fetch_add(1, std::memory_order_relaxed);
    }
    if (auto self = weak.lock()) {
      net::post(self->strand_, [self, id, reply = std::move(reply)]() mutable {
        self->run([&](Table& table, TableTime now, Outbox& out) {
          table.engine_answered(id, std::move(reply), now, out);
        });
      });
    }
  };
  auto engine = find_engine(request.kind);
  if (!engine) {
    // A stored room of a game whose engine this server was started without.
    EngineReply missing;
    missing.cause = "no engine is registered under " + request.kind + " (--engine)";
    return net::post(strand_, [answered, missing] { answered(missing); });
  }
  engine->call(std::move(request.call), std::move(answered));
}

void Room::think(BotThink request) {
  post_bot_think([weak = weak_from_this(), request = std::move(request)]() mutable {
    Rng rng(request.seed);
    Json move = request.bot->choose(request.view, request.prompt, rng);
    auto self = weak.lock();
    if (!self) return;
    net::post(self->strand_, [self, request = std::move(request),
                              move = std::move(move)]() mutable {
      self->run([&](Table& table, TableTime now, Outbox& out) {
        table.bot_answered(request.bot.get(), request.seat, request.seq, std::move(move), now, out);
      });
    });
  });
}

void Room::sync_timer() {
  const auto next = stopped_ ? std::nullopt : table_.next_deadline();
  if (next == timer_at_) return;
  timer_at_ = next;
  if (!next) {
    timer_.cancel();
    return;
  }
  timer_.expires_at(*next);
  timer_.async_wait([self = shared_from_this(), at = *next](boost::system::error_code ec) {
    if (ec) return;
    const std::lock_guard lock(self->table_mutex_);
    // A timer re-armed since (or cancelled) is not this one's business.
    if (self->timer_at_ != at) return;
    self->timer_at_.reset();
    self->run_locked([&](Table& table, TableTime now, Outbox& out) { table.advance(now, out); });
  });
}

}  // namespace parlor::server
