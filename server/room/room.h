// A room: the actor around one Table. It owns the table's strand, its one timer, its store
// calls and its deliveries; the table (table.h) decides everything. Every public method hops
// onto the strand, hands the table the current time, and carries out the Outbox it fills:
// store writes, frames to players and connections, and what the lobby must learn. The room
// never waits on a socket.
//
// A store write's completion is the one thing that may run the table off the strand: when an
// event loop's thread commits at the end of its pass (EndOfPassCommits), it runs the table's
// durable() there and then if the table is free, instead of posting it back (a second trip
// through the event loop for every move). table_mutex_ is what makes that safe: whoever runs
// the table holds it, the strand's handlers and that thread alike.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "server/identity.h"
#include "server/room/table.h"
#include "server/store/store.h"

namespace parlor::server {

struct ServerConfig;
class Metrics;
class Room;

// What the room tells the lobby directory.
struct RoomHooks {
  // The lobby's copy of the room summary (for list_rooms) changed.
  std::function<void(const std::string& room, std::shared_ptr<const protocol::RoomSummary> summary)>
      summary_changed;
  // The room was created by `creator` and is no longer unfinished (or is again: delta +1).
  std::function<void(const std::shared_ptr<Player>& creator, int delta)> open_rooms_changed;
  // The room has ended its life here (swept, or let go to another node): the directory
  // drops it, if `room` is still the one it holds under that id.
  std::function<void(const std::string& id, const Room* room)> removed;
  // A spectator started or stopped watching (cluster mode: the directory keeps them). May be
  // empty.
  std::function<void(const std::string& room, const WatcherChange& change)> watcher_changed;
  // Cluster mode: a write failed and the room stopped; the directory stops counting it as
  // held so that the node loads it again from the store once it answers. May be empty.
  std::function<void(const std::string& id, const Room* room)> stalled;
};

class Room : public std::enable_shared_from_this<Room> {
 public:
  // `store`: null when nothing is persisted.
  Room(boost::asio::io_context& io, TableSetup setup, Store* store, const ServerConfig& config,
       Metrics& metrics, RoomHooks hooks);

  const std::string& id() const { return id_; }
  bool is_private() const { return is_private_; }

  void join(Caller caller, std::optional<int> seat, bool creating = false);
  void watch(Caller caller);
  void leave(Caller caller);
  void add_bot(Caller caller, int seat, std::string strategy);
  void start(Caller caller);
  void chat(Caller caller, std::string text);
  // `move_text` (protocol::Move::move_text) is copied here, for a room that stores its moves.
  void move(Caller caller, Json move, std::optional<std::int64_t> seq,
            std::string_view move_text = {});
  void legal_moves(Caller caller);
  void remove_seat(Caller caller, int seat);
  void set_locked(Caller caller, bool locked);
  // The admin API closed the room: its members are told why and it is removed.
  void close(std::string reason);
  // After a reconnect: the room and state pushes for this player, on its new connection.
  void resume(std::shared_ptr<Player> player);
  // A member's connection went away or came back: the `connected` flags changed.
  void connection_changed(std::shared_ptr<Player> player);
  // A member took a new name (rename): its seat shows it from now on.
  void renamed(std::shared_ptr<Player> player);
  // Removes the room (hooks.removed) when it is idle or finished long ago.
  void sweep();
  // Cluster mode: another node serves the room now (`new_node`: its host:port when known).
  // Its members are told and the room is removed (Table::let_go).
  void let_go(std::string new_node);
  // Server shutdown: stop the timer.
  void shutdown();
  // Rebuilds the room from its stored record and moves (before anyone can reach it).
  // Returns false when the game no longer replays identically: the room is then frozen.
  // `spectators`: cluster mode, the ids of the room's spectators the directory kept (each
  // known to `identity`): they get their places back when they resume.
  bool restore(const LoadedRoom& stored, Identity& identity,
               const std::vector<std::string>& spectators = {});
  // The summary of a room restored but not yet resumed, so the lobby lists it from the moment
  // it is registered (resume_after_restore's own summary comes later, from the strand). Only
  // before the room runs: the table is not yet anyone else's.
  std::shared_ptr<const protocol::RoomSummary> restored_summary() const;
  // After restore() and registration: restarts grace periods, clocks and bots.
  void resume_after_restore();

 private:
  // On the strand: runs `step(table, now, outbox)` and carries out what it decided, holding
  // table_mutex_ (run_locked: already held). `deadlines_may_change` false: the step cannot
  // have moved the table's next deadline, so the timer is left as it is.
  template <class Step>
  void run(Step&& step, bool deadlines_may_change = true);
  template <class Step>
  void run_locked(Step&& step, bool deadlines_may_change = true);
  // A gating write's completion, on the thread that committed it (in commit order): the
  // table learns it at once on an event loop's thread when nothing else runs it and no earlier
  // completion is still on its way through the strand; otherwise through the strand.
  void durable(WriteResult result);
  void carry_out(Outbox& out, bool deadlines_may_change);
  void write(StoreWrite write);
  // Makes an external game's engine call; its answer comes back onto the strand.
  void call_engine(EngineRequest request);
  // Lets a searching bot think on the bot pool; its move comes back onto the strand.
  void think(BotThink request);
  // Arms the timer for the table's next deadline (or cancels it).
  void sync_timer();

  const std::string id_;
  const bool is_private_;
  const std::shared_ptr<Player> creator_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  Table table_;
  Store* store_;
  Metrics& metrics_;
  RoomHooks hooks_;
  // Held by whoever runs the table; guards table_, timer_, timer_at_ and stopped_.
  std::mutex table_mutex_;
  boost::asio::steady_timer timer_;
  std::optional<Clock::time_point> timer_at_;
  bool stopped_ = false;
  // Completions posted to the strand and not yet run: while there are any, later ones follow
  // them through the strand, so the table learns them in commit order.
  std::atomic<int> durables_posted_{0};
};

}  // namespace parlor::server
