// This process as a node of a cluster (docs/ARCHITECTURE.md, "Cluster mode"): one thread of
// its own that keeps the node alive in Redis, records the rooms this node creates in the
// room directory, takes over the rooms of nodes that died, and lets go of rooms that moved on
// while this node was away. Nothing here runs on a room's strand or an I/O thread: Redis and
// PostgreSQL calls block this thread (or the blocking pool, for locate()), bounded by their
// timeouts.
//
// Who owns a room is decided in two places that agree by construction: Redis arbitrates
// (claims are one Lua script: one winner), PostgreSQL enforces (each room row's epoch; the
// store refuses older writes). A takeover is claim (Redis) -> fence (PostgreSQL) -> load ->
// serve, so the new owner has every move the old one stored, and the old one can store no
// more.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "protocol/encode.h"
#include "server/cluster/ownership.h"
#include "server/cluster/redis_client.h"

namespace parlor::server {

class Identity;
class Lobby;
class Metrics;
class PostgresCluster;

struct ClusterOptions {
  std::string redis_url;
  NodeInfo self;
  std::chrono::milliseconds lease{5'000};
  std::string key_prefix = "parlor:";
  // Rooms taken over per pass (the rest wait for the next pass, a third of a lease later).
  int takeover_batch = 256;
  // A room taken over is served here now (called on an I/O thread, with the ids of the
  // players it seats and of its spectators): they are invited to resume it.
  std::function<void(const std::string& room, std::vector<std::string> players)> adopted;
};

// Where a room is, as the directory says.
struct RoomLocation {
  bool here = false;  // this node owns it
  std::string node;   // the owner's advertised host:port; "" when it is between owners
};

class ClusterNode {
 public:
  ClusterNode(ClusterOptions options, boost::asio::io_context& io, PostgresCluster& postgres,
              Lobby& lobby, Identity& identity, Metrics& metrics);
  ~ClusterNode();
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // Connects to Redis and registers the node (throws RedisError naming the server when it
  // cannot), then starts the node's thread.
  void start();
  // Stops the thread. `leave`: a clean shutdown; the node leaves the registry at once so
  // that others take its rooms over without waiting for the lease to lapse.
  void stop(bool leave);

  const NodeInfo& self() const { return options_.self; }
  // A room was created here (at epoch 1): recorded in the directory by the node's thread.
  void room_created(const std::string& room);
  // A spectator started or stopped watching a room held here: recorded in the directory
  // (`{prefix}watchers:{room}`, a set of player ids) by the node's thread, in order, so that
  // a node taking the room over gives the spectators their places back.
  void watcher_changed(const std::string& room, const std::string& player, bool watching);
  // Where a room not held here lives, or nullopt when the directory does not know it.
  // Blocking (one or two Redis round trips): call it off the I/O threads.
  std::optional<RoomLocation> locate(const std::string& room);

  // ---- what links between nodes need (blocking, like locate(): off the I/O threads) ----
  // The live nodes other than this one (empty when Redis does not answer).
  std::vector<NodeInfo> other_nodes();
  // Records this node as the edge of `player`: where its connection is now, so that a node
  // taking one of its rooms over can invite it to resume there.
  void set_edge(const std::string& player);
  // The order of a hello of `player` with its token among all of its hellos on every node:
  // greater than any earlier one's (`{prefix}hello:{player}` in Redis, the later of one more
  // than the last and Redis's clock in microseconds, so that a Redis restarted empty still
  // orders the next hello after every earlier one). Without Redis, this node's clock in
  // microseconds (ordered as well as the nodes' clocks agree). A hello with a name (a new
  // player) needs none: it is generation 1, the first.
  std::uint64_t next_generation(const std::string& player);
  // The live node `player`'s connection was last on (its advertised host:port), if any.
  std::optional<NodeInfo> edge_of(const std::string& player);
  // The public rooms other nodes list (their summaries' JSON objects), at most about half a
  // second old.
  std::vector<nlohmann::json> remote_rooms();

 private:
  struct Watcher {
    std::string room;
    std::string player;
    bool watching = false;
  };

  void run();
  // One pass: heartbeat, directory updates, then (unless quiet) takeovers.
  void pass();
  // After the registration had lapsed: re-records every held room, letting go of those
  // that another node took meanwhile.
  void reassert_held();
  void take_over_orphans();
  void take_over(const std::string& room, const std::string& dead_owner, std::int64_t epoch);
  // Records spectator places in the directory (node thread).
  void record_watchers(const std::deque<Watcher>& changes);
  std::string watchers_key(const std::string& room) const;
  // Publishes this node's public rooms (what changed since the last time) for other nodes'
  // lobbies: `{prefix}lobby:{node}`, a hash of room id -> summary JSON.
  void publish_rooms();
  // Runs `body` with the Redis connection other threads share (locate and the link
  // lookups), connecting first.
  template <typename Body>
  auto with_shared_redis(Body body);

  ClusterOptions options_;
  boost::asio::io_context& io_;
  PostgresCluster& postgres_;
  Lobby& lobby_;
  Identity& identity_;
  Metrics& metrics_;

  // The node thread's Redis connection, and another for locate() (called from elsewhere).
  std::unique_ptr<RedisClient> redis_;
  std::unique_ptr<Ownership> ownership_;
  std::mutex locate_mutex_;
  std::unique_ptr<RedisClient> locate_redis_;
  std::unique_ptr<Ownership> locate_ownership_;

  std::mutex mutex_;  // guards what follows
  std::condition_variable wake_;
  bool stopping_ = false;
  std::deque<std::string> created_;  // rooms to record in the directory
  std::deque<Watcher> watchers_;     // spectator places to record in the directory
  std::thread thread_;

  // Node thread only.
  bool registered_ = false;     // the last heartbeat succeeded
  bool must_reassert_ = false;  // the registration lapsed, or Redis failed: re-record rooms
  std::chrono::steady_clock::time_point quiet_until_{};  // no takeovers before
  // What Redis holds of this node's rooms.
  std::unordered_map<std::string, std::shared_ptr<const protocol::RoomSummary>> published_;
  bool publish_from_scratch_ = true;  // the hash in Redis may hold anything: rewrite it

  std::mutex remote_mutex_;  // guards the cache of other nodes' rooms
  std::vector<nlohmann::json> remote_rooms_;
  std::chrono::steady_clock::time_point remote_rooms_at_{};
};

}  // namespace parlor::server
