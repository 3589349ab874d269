// Which node of a cluster serves which room, kept in Redis: fast and ephemeral, never the
// source of truth (the store's epochs are).
//
// - A node is alive while its key `{prefix}node:{id}` exists: one SET with a TTL per
//   heartbeat, however many rooms the node holds.
// - A room's owner is `{prefix}room:{room}` = {node, epoch}. It is valid while that node is
//   alive; there is no per-room lease to renew, so a move costs Redis nothing.
// - Claiming a room is one Lua script, so exactly one claimant wins: it succeeds when the
//   room has no owner or its owner's node is dead, and every claim raises the room's epoch
//   above both the last one Redis saw and the one the caller read from the store. The store
//   refuses writes that carry an older epoch (fencing): an owner that was paused past its TTL
//   and wakes up cannot append a single move after another node took the room over.
// - If Redis restarts empty, nodes re-register and re-claim their rooms with the store's
//   epochs as the floor, and the script still lets only one of them win each room.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/cluster/redis_client.h"

namespace parlor::server {

struct RoomOwner {
  std::string node;
  std::int64_t epoch = 0;
  bool node_alive = false;
};

struct NodeInfo {
  std::string id;
  std::string advertise;  // host:port where other nodes and the proxy reach it
};

// A room left by a node that died, to be claimed by a live one.
struct OrphanRoom {
  std::string room;
  std::string node;  // its dead owner
};

class Ownership {
 public:
  // `prefix` namespaces the keys (several clusters, or tests, on one Redis).
  Ownership(RedisClient& redis, NodeInfo self, std::chrono::milliseconds ttl,
            std::string prefix = "parlor:");

  const NodeInfo& self() const { return self_; }
  std::chrono::milliseconds ttl() const { return ttl_; }

  // Registers the node or keeps it alive for another TTL. Returns false when the node was
  // not alive just before (its first heartbeat, a Redis that restarted empty, or a pause
  // past the TTL): its rooms may have been claimed by others meanwhile, so the caller checks
  // each with owner() and re-claims or lets go.
  bool heartbeat();
  // Leaves the cluster at once (a clean shutdown): its rooms become orphans.
  void leave();

  // Claims `room` for this node. `store_epoch`: the highest epoch the store holds for the
  // room (0 if none). Returns the new epoch, or nullopt when a live node owns the room.
  std::optional<std::int64_t> claim(const std::string& room, std::int64_t store_epoch);
  // Records that this node owns `room` at `epoch`, which the store already holds for it: a
  // room this node just created (epoch 1), or one it holds after Redis lost its keys. Fails
  // (false) when Redis knows a newer epoch or another live owner: the room has moved on.
  bool reassert(const std::string& room, std::int64_t epoch);
  // Lets the room go, if this node still owns it at `epoch`. Returns whether it did.
  bool release(const std::string& room, std::int64_t epoch);
  std::optional<RoomOwner> owner(const std::string& room);

  std::vector<NodeInfo> live_nodes();
  // Where a live node is reached (its heartbeat's value), or nullopt when it is dead.
  std::optional<std::string> advertise(const std::string& node);
  // Rooms whose owner node is dead.
  std::vector<OrphanRoom> orphans();

 private:
  std::string node_key(const std::string& node) const { return prefix_ + "node:" + node; }
  std::string rooms_key(const std::string& node) const { return node_key(node) + ":rooms"; }
  std::string room_key(const std::string& room) const { return prefix_ + "room:" + room; }

  RedisClient& redis_;
  NodeInfo self_;
  std::chrono::milliseconds ttl_;
  std::string prefix_;
};

}  // namespace parlor::server
