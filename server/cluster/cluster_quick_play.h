// Quick play across a cluster (docs/ARCHITECTURE.md, "Cluster mode: quick play"): players
// wait in queues kept in Redis, whatever node their connection is on, and one node at a time
// forms the tables.
//
// - A waiting player is a ticket, `{prefix}qp:ticket:{player}` (a hash: its node, its
//   connection's hello generation, rating, the wish, name and token hash, and its enqueue
//   time from Redis's clock), in its queue `{prefix}qp:queue:{key}` (a sorted set by enqueue
//   time; key: Matchmaker::key_of) listed in `{prefix}qp:buckets` while non-empty. Enqueueing
//   is one Lua script that refuses a player whose ticket is held by a live node: already
//   queued, cluster-wide. Only the ticket's node (and connection) removes it on cancel or
//   disconnect.
// - Tickets expire unless their node renews them (every pass, half a second): a node that
//   dies leaves nobody waiting for long. A node whose tickets Redis lost (restarted empty)
//   writes them again with their first enqueue time.
// - The node holding the lease `{prefix}qp:former` (renewed every pass; another node takes it
//   once it lapses) reads every queue, drops tickets of nodes that are not live, and feeds
//   the rest to a Matchmaker, with the enqueue times as they were: rating bands, widening and
//   bots_after work as on one node. It claims a table's tickets in one Lua script (if one is
//   gone, the table waits for the next pass), opens the room itself, and tells each player's
//   node (kQuickPlay over the links) that they are seated; that node pushes `seated` to the
//   connection that queued, if it is still the player's, and resumes the room for it as an
//   invitation does. A player whose node died meanwhile is a disconnected member: the grace
//   period, then a bot.
// - The former sends every waiting player's standing to its node each pass; the node pushes
//   only changes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "server/cluster/link_message.h"
#include "server/cluster/ownership.h"
#include "server/cluster/redis_client.h"
#include "server/matchmaker.h"
#include "server/quick_play.h"

namespace parlor::server {

class ServerState;

struct ClusterQuickPlayOptions {
  RedisAddress redis;
  NodeInfo self;
  std::string key_prefix = "parlor:";
  // The node lease: the former's lease lasts as long, and tickets three times as long.
  std::chrono::milliseconds lease{5'000};
  std::chrono::milliseconds bots_after{15'000};
  Matchmaker::RatingBand band;
};

class ClusterQuickPlay {
 public:
  static constexpr std::chrono::milliseconds kPass{500};

  ClusterQuickPlay(ClusterQuickPlayOptions options, ServerState& state, QuickPlay& tables);
  ~ClusterQuickPlay();
  ClusterQuickPlay(const ClusterQuickPlay&) = delete;
  ClusterQuickPlay& operator=(const ClusterQuickPlay&) = delete;

  void start();
  void stop();

  // ---- blocking (Redis): call them through ServerState::run_blocking ----
  // Queues `player`'s connection of hello `generation` (the wish checked already by
  // QuickPlay::check). Returns the `waiting` push to answer with, or a refusal
  // (already_queued). Throws RedisError.
  std::variant<Json, QuickPlay::Refusal> enqueue(const std::shared_ptr<Player>& player,
                                                 std::uint64_t generation,
                                                 const Matchmaker::Wish& wish, double rating);
  // Takes the player's ticket out of its queue if this node's connection of `generation`
  // holds it (0: any of this node's). False when it was not waiting. Throws RedisError.
  bool cancel(const std::string& player, std::uint64_t generation);

  // Whether a connection of `player` on this node queued and was not seated yet.
  bool waiting_here(const std::string& player) const;
  // A kQuickPlay message for a player connected here (any thread).
  void pushed(const link::Message& message);

 private:
  struct Local {
    std::uint64_t generation = 0;
    std::string key;
    std::string since;  // Redis's enqueue time, ms
    std::vector<std::string> fields;
  };

  void run();
  void pass();
  // Renews this node's tickets, writing again those Redis lost.
  void refresh();
  bool hold_lease();
  void form();
  void push(const std::string& node, const std::string& advertise, const std::string& player,
            std::uint64_t generation, link::QuickPlayPush what, std::string body);

  ClusterQuickPlayOptions options_;
  ServerState& state_;
  QuickPlay& tables_;

  // The node thread's connection (refresh and forming), and another for requests.
  std::unique_ptr<RedisClient> redis_;
  std::unique_ptr<Ownership> ownership_;
  std::mutex request_mutex_;
  std::unique_ptr<RedisClient> request_redis_;

  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<std::string, Local> local_;               // this node's waiting players
  std::map<std::string, std::pair<int, int>> told_;  // their last standing pushed
  std::thread thread_;
  bool former_ = false;  // node thread only: held the lease at the last pass
};

}  // namespace parlor::server
