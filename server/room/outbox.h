// What a room table decided, as values for the actor around it to carry out: frames to
// deliver, store writes to make, and what the lobby must learn. The table never touches a
// socket, a timer or the disk itself, which is what lets it be driven by a test, a replayed
// log or another node.
//
// The write-ahead rule lives here too (WriteAheadGate): while a write that gates frames is
// not yet durable, every frame the table makes waits, in order, and goes out only once the
// store has confirmed every such write. No frame that reveals a move leaves before the
// move is stored.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "bots/strategy.h"
#include "games/external/external_game.h"
#include "protocol/encode.h"
#include "server/connection.h"
#include "server/frame.h"
#include "server/identity.h"
#include "server/store/store.h"

namespace parlor::server {

using Clock = std::chrono::steady_clock;

// A frame for one recipient: a player (whatever connection is theirs when it goes out), or
// one connection (a reply goes back where the request came from).
struct Delivery {
  std::shared_ptr<Player> player;
  std::shared_ptr<Connection> connection;
  Frame frame;
};

// A record for the store. `gating`: frames wait for it, and its failure stops the game.
struct StoreWrite {
  std::variant<MoveRecord, RoomRecord, RatedGameRecord> record;
  bool gating = false;
};

// A player started or stopped being a member (seated or watching) of the room: the
// player's room list, which a reconnect resumes, follows it.
struct MembershipChange {
  std::shared_ptr<Player> player;
  bool member = false;
};

// A spectator started or stopped watching (by request: not when the room goes). In cluster
// mode the directory keeps the room's spectators, so that a node taking the room over gives
// them their places back (docs/ARCHITECTURE.md, "Cluster mode").
struct WatcherChange {
  std::string player;
  bool watching = false;
};

// A call to the rules engine of an external game (server/engine/), to make off the strand;
// its answer goes back to Table::engine_answered with `id`.
struct EngineRequest {
  std::uint64_t id = 0;
  std::string kind;  // the game's kind: the engine registered under that name
  external::EngineCall call;
};

// A searching bot's turn (bots::strategy_searches), to think off the strand on the bounded
// bot pool (server/room/bot_pool.h) so a long think never holds up this room's strand or any
// other room's. Its move comes back to Table::bot_answered, which plays it only if the room is
// still at `seq`.
struct BotThink {
  std::shared_ptr<bots::Strategy> bot;
  Json view;
  Json prompt;
  std::uint64_t seed = 0;  // the think's random source, drawn from the table's bot Rng
  std::int64_t seq = 0;
  Seat seat = 0;
};

struct Outbox {
  std::vector<Delivery> deliveries;  // in order
  std::vector<StoreWrite> writes;    // in order, before the deliveries' later writes
  std::vector<MembershipChange> memberships;
  std::vector<WatcherChange> watchers;
  // The room's lobby summary changed: the new one.
  std::shared_ptr<const protocol::RoomSummary> summary;
  // +1 / -1: the room now counts / no longer counts toward its creator's open rooms.
  int open_rooms_delta = 0;
  // A player's move was accepted; when its request arrived (for the latency metric).
  std::optional<Clock::time_point> accepted_move_received;
  // The room has ended its life here (swept): the actor removes it from the lobby.
  bool remove = false;
  std::optional<EngineRequest> engine_call;
  std::optional<BotThink> bot_think;
  // Cluster mode: a write failed and the table stopped (Table::stall); the node loads the
  // room again from the store once it answers.
  bool store_stalled = false;

  bool empty() const {
    return deliveries.empty() && writes.empty() && memberships.empty() && watchers.empty() &&
           !summary && open_rooms_delta == 0 && !accepted_move_received && !remove &&
           !engine_call && !bot_think && !store_stalled;
  }
  // Empties it, keeping the vectors' capacity (one outbox is reused from call to call).
  void clear() {
    deliveries.clear();
    writes.clear();
    memberships.clear();
    watchers.clear();
    summary.reset();
    open_rooms_delta = 0;
    accepted_move_received.reset();
    remove = false;
    engine_call.reset();
    bot_think.reset();
    store_stalled = false;
  }
};

class WriteAheadGate {
 public:
  // Queues `delivery` in `out`, or holds it while a gating write is outstanding.
  void deliver(Outbox& out, Delivery delivery) {
    if (outstanding_ > 0) {
      if (held_.capacity() == 0) held_ = take_storage();
      held_.push_back(std::move(delivery));
    } else {
      out.deliveries.push_back(std::move(delivery));
    }
  }
  // Queues a write; a gating one holds every frame delivered after it until durable().
  void write(Outbox& out, StoreWrite write) {
    if (write.gating) ++outstanding_;
    out.writes.push_back(std::move(write));
  }
  // The store completed the oldest outstanding gating write. Once none is outstanding the
  // held frames go into `out`, in the order they were made.
  void durable(Outbox& out) {
    if (outstanding_ > 0) --outstanding_;
    if (outstanding_ > 0) return;
    for (Delivery& delivery : held_) out.deliveries.push_back(std::move(delivery));
    give_back_storage();
  }
  // Forgets the held frames (a write failed: they must never go out).
  void drop_held() { give_back_storage(); }
  int outstanding() const { return outstanding_; }
  std::size_t held() const { return held_.size(); }

 private:
  // A room holds frames only while a move's write is made durable, every move of a durable
  // room: the vector that holds them comes from those kept per thread and goes back once they
  // are out, so that holding them allocates nothing and an idle room keeps no capacity. A
  // pass of the event loop holds the frames of every room it moved until its commit (at 100
  // rooms flat out, 40 to 90 of them), so the thread keeps as many vectors as a pass's rooms:
  // with 8 kept, most rooms of a busy pass grew a vector of their own, 2.4 allocations a
  // durable move. At most 1,024 × 16 deliveries (48 bytes each) stay kept, 768 KiB a
  // thread; a larger vector (a room with many spectators) is freed.
  static constexpr std::size_t kKeptStorage = 1024;
  static constexpr std::size_t kLargestKept = 16;   // deliveries
  static constexpr std::size_t kFirstCapacity = 8;  // a move's frames for four players, and more
  static std::vector<std::vector<Delivery>>& kept() {
    thread_local std::vector<std::vector<Delivery>> storage;
    return storage;
  }
  static std::vector<Delivery> take_storage() {
    auto& storage = kept();
    if (storage.empty()) {
      std::vector<Delivery> fresh;
      fresh.reserve(kFirstCapacity);
      return fresh;
    }
    std::vector<Delivery> out = std::move(storage.back());
    storage.pop_back();
    return out;
  }
  void give_back_storage() {
    std::vector<Delivery> used;
    used.swap(held_);  // held_ is left without capacity
    used.clear();
    auto& storage = kept();
    if (used.capacity() > 0 && used.capacity() <= kLargestKept && storage.size() < kKeptStorage) {
      storage.push_back(std::move(used));
    }
  }

  int outstanding_ = 0;
  std::vector<Delivery> held_;
};

}  // namespace parlor::server
