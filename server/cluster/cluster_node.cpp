#include "server/cluster/cluster_node.h"

#include <boost/asio/post.hpp>

#include "protocol/encode.h"
#include "server/identity.h"
#include "server/lobby.h"
#include "server/log.h"
#include "server/log_throttle.h"
#include "server/metrics.h"
#include "server/store/postgres_cluster.h"
#include "server/thread_name.h"

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
  thread_ = std::thread([this] {
    name_this_thread("parlor-cluster");
    run();
  });
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
      redis_->command({"DEL", options_.key_prefix + "lobby:" + options_.self.id});
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

void ClusterNode::watcher_changed(const std::string& room, const std::string& player,
                                  bool watching) {
  {
    std::lock_guard lock(mutex_);
    watchers_.push_back({room, player, watching});
  }
  wake_.notify_all();
}

std::string ClusterNode::watchers_key(const std::string& room) const {
  return options_.key_prefix + "watchers:" + room;
}

void ClusterNode::record_watchers(const std::deque<Watcher>& changes) {
  for (const Watcher& change : changes) {
    try {
      const std::string key = watchers_key(change.room);
      redis_->command({change.watching ? "SADD" : "SREM", key, change.player});
      // Kept a day, like a player's edge: longer than any game, and the sets of rooms that
      // ended expire on their own.
      if (change.watching) redis_->command({"EXPIRE", key, "86400"});
    } catch (const RedisError& error) {
      // A spectator place is not the game: if the room moves before Redis is back, this
      // spectator watches again by watch_room.
      redis_failures().info(std::string("cluster: cannot record a spectator: ") + error.what());
    }
  }
}

template <typename Body>
auto ClusterNode::with_shared_redis(Body body) {
  std::lock_guard lock(locate_mutex_);
  if (!locate_redis_) {
    locate_redis_ =
        std::make_unique<RedisClient>(parse_redis_url(options_.redis_url), kRedisTimeout);
    locate_ownership_ = std::make_unique<Ownership>(*locate_redis_, options_.self, options_.lease,
                                                    options_.key_prefix);
  }
  return body(*locate_redis_, *locate_ownership_);
}

std::optional<RoomLocation> ClusterNode::locate(const std::string& room) {
  try {
    return with_shared_redis(
        [&](RedisClient&, Ownership& ownership) -> std::optional<RoomLocation> {
          const auto owner = ownership.owner(room);
          if (!owner) return std::nullopt;
          if (!owner->node_alive) return RoomLocation{false, ""};
          if (owner->node == options_.self.id) return RoomLocation{true, options_.self.advertise};
          return RoomLocation{false, ownership.advertise(owner->node).value_or("")};
        });
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot look a room up: ") + error.what());
    return std::nullopt;
  }
}

std::vector<NodeInfo> ClusterNode::other_nodes() {
  try {
    auto nodes = with_shared_redis(
        [&](RedisClient&, Ownership& ownership) { return ownership.live_nodes(); });
    std::erase_if(nodes, [&](const NodeInfo& node) { return node.id == options_.self.id; });
    return nodes;
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot list the nodes: ") + error.what());
    return {};
  }
}

void ClusterNode::set_edge(const std::string& player) {
  try {
    with_shared_redis([&](RedisClient& redis, Ownership&) {
      // Kept a day: long enough for any game, and keys of players who never return expire.
      redis.command(
          {"SET", options_.key_prefix + "edge:" + player, options_.self.id, "EX", "86400"});
    });
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot record a player's node: ") + error.what());
  }
}

std::uint64_t ClusterNode::next_generation(const std::string& player) {
  // Microseconds since 1970 stay below 2^53 (exact in Lua's doubles) for centuries.
  static constexpr std::string_view kNext = R"(
    local now = redis.call('TIME')
    local next = tonumber(now[1]) * 1000000 + tonumber(now[2])
    local last = tonumber(redis.call('GET', KEYS[1]) or '0')
    if last >= next then next = last + 1 end
    redis.call('SET', KEYS[1], string.format('%.0f', next), 'EX', 86400)
    return next
  )";
  try {
    const RedisReply reply = with_shared_redis([&](RedisClient& redis, Ownership&) {
      return redis.eval(kNext, {options_.key_prefix + "hello:" + player}, {});
    });
    if (reply.type == RedisReply::Type::kInteger && reply.integer > 1) {
      return static_cast<std::uint64_t>(reply.integer);
    }
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot order a player's hello: ") + error.what());
  }
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

std::optional<NodeInfo> ClusterNode::edge_of(const std::string& player) {
  try {
    return with_shared_redis(
        [&](RedisClient& redis, Ownership& ownership) -> std::optional<NodeInfo> {
          const RedisReply node = redis.command({"GET", options_.key_prefix + "edge:" + player});
          if (node.is_nil()) return std::nullopt;
          if (node.text == options_.self.id) return options_.self;
          const auto advertise = ownership.advertise(node.text);
          if (!advertise) return std::nullopt;  // that node is gone; the player reconnects
          return NodeInfo{node.text, *advertise};
        });
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot look a player's node up: ") + error.what());
    return std::nullopt;
  }
}

std::vector<nlohmann::json> ClusterNode::remote_rooms() {
  {
    std::lock_guard lock(remote_mutex_);
    if (SteadyClock::now() - remote_rooms_at_ < std::chrono::milliseconds(500)) {
      return remote_rooms_;
    }
  }
  std::vector<nlohmann::json> rooms;
  try {
    with_shared_redis([&](RedisClient& redis, Ownership& ownership) {
      for (const NodeInfo& node : ownership.live_nodes()) {
        if (node.id == options_.self.id) continue;
        const RedisReply hash = redis.command({"HVALS", options_.key_prefix + "lobby:" + node.id});
        for (const RedisReply& value : hash.elements) {
          auto summary = nlohmann::json::parse(value.text, nullptr, /*allow_exceptions=*/false);
          if (summary.is_object()) rooms.push_back(std::move(summary));
        }
      }
    });
  } catch (const RedisError& error) {
    // The other nodes' rooms are missing from the list until Redis answers; this node's are
    // there.
    redis_failures().info(std::string("cluster: cannot list other nodes' rooms: ") + error.what());
  }
  std::lock_guard lock(remote_mutex_);
  remote_rooms_ = rooms;
  remote_rooms_at_ = SteadyClock::now();
  return rooms;
}

void ClusterNode::run() {
  const auto period = options_.lease / 3;
  // Other nodes' lobbies see a room change here within about this long.
  constexpr auto kPublishPeriod = std::chrono::milliseconds(250);
  auto next_pass = SteadyClock::now() + period;
  auto next_publish = SteadyClock::now();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_until(lock, std::min(next_pass, next_publish),
                     [&] { return stopping_ || !created_.empty() || !watchers_.empty(); });
    if (stopping_) break;
    std::deque<std::string> created;
    created.swap(created_);
    std::deque<Watcher> watchers;
    watchers.swap(watchers_);
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
    record_watchers(watchers);
    if (SteadyClock::now() >= next_pass) {
      pass();
      next_pass = SteadyClock::now() + period;
    }
    if (SteadyClock::now() >= next_publish) {
      publish_rooms();
      next_publish = SteadyClock::now() + kPublishPeriod;
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
  // A room of this node stalled by a failed write (Lobby::held_rooms leaves it out) that
  // another node serves now, or that ended meanwhile, is let go here.
  const auto let_go_stalled = [&] {
    if (dead_owner == options_.self.id) lobby_.let_go(room, "");
  };
  if (!epoch) return let_go_stalled();  // a live node has it (another claimant won)
  // From this commit on, the old owner cannot store a single write for the room.
  if (!postgres_.fence(room, options_.self.id, *epoch)) {
    ownership_->release(room, *epoch);  // finished meanwhile, or fenced by someone newer
    return let_go_stalled();
  }
  // The spectators the directory kept for the room: a spectator place is not worth stopping
  // the takeover for, so without Redis they watch again by watch_room.
  std::vector<std::string> spectators;
  try {
    for (const RedisReply& id : redis_->command({"SMEMBERS", watchers_key(room)}).elements) {
      spectators.push_back(id.text);
    }
  } catch (const RedisError& error) {
    redis_failures().info(std::string("cluster: cannot read a room's spectators: ") + error.what());
  }
  auto taken = postgres_.load_room(room, spectators);
  if (!taken) {
    ownership_->release(room, *epoch);
    return;
  }
  // The lobby and the identities belong to the I/O threads' world: the room is built there.
  boost::asio::post(io_, [this, taken = std::move(*taken), epoch = *epoch, dead_owner, started] {
    for (const PlayerRecord& p : taken.players) {
      if (!identity_.find(p.id)) {
        identity_.restore(
            std::make_shared<Player>(p.id, p.name, p.token_hash, p.created_ms, p.last_seen_ms));
      }
    }
    const bool identical = lobby_.adopt(taken.room, epoch, identity_, taken.spectators);
    if (options_.adopted) {
      std::vector<std::string> players;
      for (const PlayerRecord& p : taken.players) players.push_back(p.id);
      options_.adopted(taken.room.room.id, std::move(players));
    }
    metrics_.cluster_rooms_taken_over.fetch_add(1, std::memory_order_relaxed);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started).count();
    log_info("cluster: room " + taken.room.room.id +
             (dead_owner == options_.self.id ? std::string(" loaded again from the store")
                                             : " taken over from node \"" + dead_owner + "\"") +
             " at epoch " + std::to_string(epoch) + ": " + std::to_string(taken.room.moves.size()) +
             " moves replayed in " + std::to_string(ms) + " ms, " +
             std::to_string(taken.spectators.size()) + " spectators kept" +
             (identical ? "" : "; it no longer replays, frozen"));
  });
}

void ClusterNode::publish_rooms() {
  // Summaries are immutable and replaced on every change: a pointer that has not changed
  // is a summary already published.
  std::unordered_map<std::string, std::shared_ptr<const protocol::RoomSummary>> now;
  for (auto& summary : lobby_.public_summaries()) now.emplace(summary->room, std::move(summary));
  const std::string key = options_.key_prefix + "lobby:" + options_.self.id;
  std::vector<std::string> set{"HSET", key};
  std::vector<std::string> del{"HDEL", key};
  for (const auto& [room, summary] : now) {
    if (auto it = published_.find(room);
        publish_from_scratch_ || it == published_.end() || it->second != summary) {
      set.push_back(room);
      set.push_back(protocol::to_wire(protocol::room_summary_json(*summary)));
    }
  }
  for (const auto& [room, summary] : published_) {
    if (!now.contains(room)) del.push_back(room);
  }
  try {
    if (publish_from_scratch_) redis_->command({"DEL", key});
    if (set.size() > 2) redis_->command(set);
    if (del.size() > 2) redis_->command(del);
    published_ = std::move(now);
    publish_from_scratch_ = false;
  } catch (const RedisError& error) {
    publish_from_scratch_ = true;
    redis_failures().info(std::string("cluster: cannot publish this node's rooms: ") +
                          error.what());
  }
}

}  // namespace parlor::server
