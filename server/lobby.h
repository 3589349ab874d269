// The lobby: the directory of rooms (create, find, list, remove). It holds no game
// state — each Room owns its own — only a summary per room for list_rooms and metrics.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "protocol/commands.h"
#include "protocol/error_code.h"
#include "server/room/room.h"
#include "server/sharded_map.h"

namespace parlor::server {

// What a cluster's directory learns of the rooms held on this node (cluster mode).
struct ClusterRoomEvents {
  // A room was created here (at epoch 1).
  std::function<void(const std::string& room)> created;
  // A spectator started or stopped watching a room held here: kept so that a node taking the
  // room over gives them their place back.
  std::function<void(const std::string& room, const std::string& player, bool watching)>
      watcher_changed;
};

class Lobby {
 public:
  Lobby(boost::asio::io_context& io, const ServerConfig& config, Metrics& metrics);

  struct Refusal {
    protocol::ErrorCode code = protocol::ErrorCode::kBadRequest;
    std::string message;
  };
  // Validates kind, seats, game options and room options (`seed` only in dev mode, `private`)
  // and registers a new room created by `creator` (not yet seated).
  std::shared_ptr<Room> create_room(const std::shared_ptr<Player>& creator,
                                    const protocol::CreateRoom& request, Refusal& refusal);
  // The table `request` asks for, checked as create_room checks it: the kind, the seat count,
  // the game's options (normalized into setup.game_options) and the room options that ride
  // along with them (into setup.options; `seed` only when `allow_seed`, none at all unless
  // `room_options`). Fills setup's game, seats, game_options and options.
  static std::optional<Refusal> check_table(const protocol::CreateRoom& request, bool allow_seed,
                                            bool room_options, TableSetup& setup);
  // The room `id`, or null. Without the lobby's mutex: rooms are found on every move, from
  // every I/O thread (sharded_map.h).
  std::shared_ptr<Room> find(const std::string& id) const;

  std::vector<protocol::RoomSummary> list_rooms() const;  // public rooms only
  // The same summaries, shared: each is replaced (never changed) when its room changes.
  std::vector<std::shared_ptr<const protocol::RoomSummary>> public_summaries() const;
  // Every room's summary, private ones included, and whether it is private (the admin API).
  std::vector<std::pair<std::shared_ptr<const protocol::RoomSummary>, bool>> every_summary() const;
  std::map<std::string, std::int64_t> rooms_by_status() const;
  // The summary of room `id` (private or not), or null when there is no such room here.
  std::shared_ptr<const protocol::RoomSummary> summary_of(const std::string& id) const;

  void start_sweeper();
  void shutdown();

  // Rooms go to `store` from now on (null: nothing is persisted).
  void set_store(Store* store) { store_ = store; }
  // Whether rooms are kept in a store (rated games need one).
  bool has_store() const { return store_ != nullptr; }
  // Rebuilds every stored unfinished room; returns how many were frozen.
  int restore(const LoadedState& stored, Identity& identity);

  // Cluster mode: rooms created here belong to node `node_id` at epoch 1, and the directory
  // learns what it keeps of them through `events`.
  void set_cluster(std::string node_id, ClusterRoomEvents events);
  // Serves a room taken over from another node, owned now at `epoch`, with the spectators
  // the directory kept (ids known to `identity`). Returns false when its game no longer
  // replays identically (the room is then frozen, but held).
  bool adopt(const LoadedRoom& stored, std::int64_t epoch, Identity& identity,
             const std::vector<std::string>& spectators);
  // The rooms held here and their epochs (cluster mode). A room stalled by a failed write is
  // not held: the node loads it again from the store, as it would an orphan, once the store
  // answers (adopt() then replaces it).
  std::vector<std::pair<std::string, std::int64_t>> held_rooms() const;
  // Another node serves `room` now: its members are told and it is removed here.
  void let_go(const std::string& room, const std::string& new_node);

 private:
  struct Entry {
    std::shared_ptr<Room> room;
    std::shared_ptr<const protocol::RoomSummary> summary;
    bool is_private = false;
    std::int64_t epoch = 0;  // cluster mode: this node's epoch of ownership
    bool stalled = false;    // cluster mode: a write failed; to be loaded again
  };
  // Builds, restores and registers one stored room; returns whether it replayed identically.
  bool restore_one(const LoadedRoom& stored, std::int64_t epoch, Identity& identity,
                   const std::vector<std::string>& spectators = {});
  void sweep();
  void arm_sweeper();
  RoomHooks hooks();

  boost::asio::io_context& io_;
  const ServerConfig& config_;
  Metrics& metrics_;
  Store* store_ = nullptr;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> rooms_;
  // The rooms of rooms_ again, for find(); changed with rooms_, under mutex_. On the heap: its
  // shards are aligned to cache lines, which would pad every object holding a Lobby.
  std::unique_ptr<ShardedMap<Room>> index_ = std::make_unique<ShardedMap<Room>>();
  boost::asio::steady_timer sweeper_;
  std::optional<Clock::time_point> last_prune_;  // the store's replay retention, hourly
  std::atomic<bool> stopped_{false};
  std::string node_id_;  // cluster mode: this node; empty on a single server
  ClusterRoomEvents cluster_events_;
};

}  // namespace parlor::server
