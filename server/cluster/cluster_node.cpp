#include "server/cluster/cluster_node.h"

#include <boost/asio/post.hpp>

#include "server/identity.h"
#include "server/lobby.h"
#include "server/log.h"
#include "server/log_throttle.h"
#include "server/metrics.h"
#include "server/store/postgres_cluster.h"

namespace parlor::server {

namespace {
using SteadyClock = std::chrono::steady_clock;

// Redis calls are bounded: a node must notice quickly that Redis is gone, and keep serving.
constexpr std::chrono::milliseconds kRedisTimeout{1'000};

LogThrottle& redis_failures() {
  static LogThrottle throttle(std::chrono::seconds(5));
  return throttle;
}
}  // namespace

ClusterNode::ClusterNode(ClusterOptions options, boost::asio::io_context& io,
                         PostgresCluster& postgres, Lobby& lobby, Identity& identity,
                         Metrics& metrics)
    : options_(std::move(options)),
      io_(io),
      postgres_(postgres),
      lobby_(lobby),
      identity_(identity),
      metrics_(metrics) {}

ClusterNode::~ClusterNode() { stop(false); }

void ClusterNode::start() {
  const RedisAddress address = parse_redis_url(options_.redis_url);
  redis_ = std::make_unique<RedisClient>(address, kRedisTimeout);
  ownership_ =
      std::make_unique<Ownership>(*redis_, options_.self, options_.lease, options_.key_prefix);
  if (ownership_->heartbeat()) {
    // The key was there: another process runs with this node id, or this one restarted
    // within a lease. Two live nodes under one name would each think the other's rooms
    // theirs.
    log_error("cluster: node id \"" + options_.self.id +
              "\" was already registered as alive; if another node runs under this id, give each "
              "a unique --node-id");
  }
  registered_ = true;
  // Nodes that registered before a Redis restart are back within a third of a lease; rooms
  // are taken over only once everyone has had the chance.
  quiet_until_ = SteadyClock::now() + options_.lease;
  log_info("cluster: node " + options_.self.id + " (" + options_.self.advertise +
           ") joined through Redis " + address.describe() + ", lease " +
           std::to_string(options_.lease.count()) + " ms");
  thread_ = std::thread([this] { run(); });
}

void ClusterNode::stop(bool leave) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (leave && ownership_) {
    try {
      ownership_->leave();
      log_info("cluster: node " + options_.self.id + " left; its rooms move to other nodes");
    } catch (const RedisError& error) {
      log_error(std::string("cluster: could not leave the registry (the lease will lapse): ") +
                error.what());
    }
  }
}

void ClusterNode::room_created(const std::string& room) {
  {
    std::lock_guard lock(mutex_);
    created_.push_back(room);
  }
  wake_.notify_all();
}

std::optional<RoomLocation> ClusterNode::locate(const std::string& room) {
  std::lock_guard lock(locate_mutex_);
  try {
    if (!locate_redis_) {
      locate_redis_ =
          std::make_unique<RedisClient>(parse_redis_url(options_.redis_url), kRedisTimeout);
      locate_ownership_ = std::make_unique<Ownership>(*locate_redis_, options_.self, options_.lease,
                                                      options_.key_prefix);
    }
    const auto owner = locate_ownership_->owner(room);
    if (!owner) return std::nullopt;
    if (!owner->node_alive) return RoomLocation{false, ""};
    if (owner->node == options_.self.id) return RoomLocation{true, options_.self.advertise};
    return RoomLocation{false, locate_ownership_->advertise(owner->node).value_or("")};
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot look a room up: ") + error.what());
    return std::nullopt;
  }
}

void ClusterNode::run() {
  const auto period = options_.lease / 3;
  auto next_pass = SteadyClock::now() + period;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_until(lock, next_pass, [&] { return stopping_ || !created_.empty(); });
    if (stopping_) break;
    std::deque<std::string> created;
    created.swap(created_);
    lock.unlock();
    for (const std::string& room : created) {
      try {
        // A fresh id at epoch 1: only a collision with another node's room can refuse it,
        // and then the store refuses this node's writes to it as well.
        if (!ownership_->reassert(room, 1)) {
          log_error("cluster: room id " + room + " is taken by another node; letting it go");
          lobby_.let_go(room, "");
        }
      } catch (const RedisError& error) {
        must_reassert_ = true;  // recorded with the rest once Redis answers again
        redis_failures().info(std::string("cluster: Redis: ") + error.what());
      }
    }
    if (SteadyClock::now() >= next_pass) {
      pass();
      next_pass = SteadyClock::now() + period;
    }
    lock.lock();
  }
}

void ClusterNode::pass() {
  try {
    const bool was_alive = ownership_->heartbeat();
    if (!was_alive) {
      // Redis lost the key: it restarted empty, or this node was paused (or cut off) past its
      // lease and others may have taken its rooms. Each held room is checked.
      log_error("cluster: node " + options_.self.id +
                "'s registration had lapsed (Redis restarted, or this node was paused or cut "
                "off); checking its rooms");
      must_reassert_ = true;
      quiet_until_ = SteadyClock::now() + options_.lease;
    }
    if (!registered_) log_info("cluster: Redis answers again");
    registered_ = true;
    if (must_reassert_) {
      reassert_held();
      must_reassert_ = false;
    }
  } catch (const RedisError& error) {
    // Rooms here keep playing (PostgreSQL fences every write); no room moves until Redis
    // is back.
    registered_ = false;
    must_reassert_ = true;
    redis_failures().info(std::string("cluster: Redis: ") + error.what() +
                          "; rooms here keep playing, none moves until Redis is back");
    return;
  }
  if (SteadyClock::now() < quiet_until_) return;
  try {
    take_over_orphans();
  } catch (const RedisError& error) {
    must_reassert_ = true;
    redis_failures().info(std::string("cluster: Redis: ") + error.what());
  } catch (const StoreError& error) {
    redis_failures().info(std::string("cluster: PostgreSQL: ") + error.what() +
                          "; no room is taken over until it answers");
  }
}

void ClusterNode::reassert_held() {
  for (const auto& [room, epoch] : lobby_.held_rooms()) {
    if (ownership_->reassert(room, epoch)) continue;
    std::string node;
    if (const auto owner = ownership_->owner(room); owner && owner->node_alive) {
      node = ownership_->advertise(owner->node).value_or("");
    }
    lobby_.let_go(room, node);
  }
}

void ClusterNode::take_over_orphans() {
  std::vector<std::string> others;
  for (const NodeInfo& node : ownership_->live_nodes()) {
    if (node.id != options_.self.id) others.push_back(node.id);
  }
  // Rooms whose owner is not alive, and this node's own that it does not serve (from before
  // it restarted).
  std::vector<std::string> held;
  for (auto& [room, epoch] : lobby_.held_rooms()) held.push_back(room);
  for (const OwnedRoom& candidate :
       postgres_.rooms_without_live_owner(others, held, options_.takeover_batch)) {
    take_over(candidate.room, candidate.owner, candidate.epoch);
  }
}

void ClusterNode::take_over(const std::string& room, const std::string& dead_owner,
                            std::int64_t store_epoch) {
  const auto started = SteadyClock::now();
  const auto epoch = ownership_->claim(room, store_epoch);
  if (!epoch) return;  // a live node has it (another claimant won)
  // From this commit on, the old owner cannot store a single write for the room.
  if (!postgres_.fence(room, options_.self.id, *epoch)) {
    ownership_->release(room, *epoch);  // finished meanwhile, or fenced by someone newer
    return;
  }
  auto taken = postgres_.load_room(room);
  if (!taken) {
    ownership_->release(room, *epoch);
    return;
  }
  // The lobby and the identities belong to the I/O threads' world: the room is built there.
  boost::asio::post(io_, [this, taken = std::move(*taken), epoch = *epoch, dead_owner, started] {
    for (const PlayerRecord& p : taken.players) {
      if (!identity_.find(p.id)) {
        identity_.restore(std::make_shared<Player>(p.id, p.name, p.token_hash));
      }
    }
    const bool identical = lobby_.adopt(taken.room, epoch, identity_);
    metrics_.cluster_rooms_taken_over.fetch_add(1, std::memory_order_relaxed);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started).count();
    log_info("cluster: room " + taken.room.room.id + " taken over from node \"" + dead_owner +
             "\" at epoch " + std::to_string(epoch) + ": " +
             std::to_string(taken.room.moves.size()) + " moves replayed in " + std::to_string(ms) +
             " ms" + (identical ? "" : "; it no longer replays, frozen"));
  });
}

}  // namespace parlor::server
