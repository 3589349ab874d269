#include "server/cluster/ownership.h"

namespace parlor::server {
namespace {

// KEYS: room key, this node's rooms set. ARGV: this node, the store's epoch, the node key
// prefix, the room id. Returns the new epoch, or -1 when a live node owns the room.
constexpr std::string_view kClaim = R"lua(
local owner = redis.call('HGET', KEYS[1], 'node')
if owner and owner ~= ARGV[1] and redis.call('EXISTS', ARGV[3] .. owner) == 1 then
  return -1
end
local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
local floor = tonumber(ARGV[2])
if epoch < floor then epoch = floor end
epoch = epoch + 1
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'epoch', epoch)
if owner and owner ~= ARGV[1] then
  redis.call('SREM', ARGV[3] .. owner .. ':rooms', ARGV[4])
end
redis.call('SADD', KEYS[2], ARGV[4])
return epoch
)lua";

// KEYS: room key, this node's rooms set. ARGV: this node, the epoch, the room id.
constexpr std::string_view kRelease = R"lua(
if redis.call('HGET', KEYS[1], 'node') == ARGV[1] and
   redis.call('HGET', KEYS[1], 'epoch') == ARGV[2] then
  redis.call('HDEL', KEYS[1], 'node')
  redis.call('SREM', KEYS[2], ARGV[3])
  return 1
end
return 0
)lua";

// KEYS: room key, this node's rooms set. ARGV: this node, the epoch, the node key prefix, the
// room id. Returns 1 when this node owns the room at that epoch now, 0 when another live node
// or a newer epoch holds it.
constexpr std::string_view kReassert = R"lua(
local owner = redis.call('HGET', KEYS[1], 'node')
local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
local mine = tonumber(ARGV[2])
if epoch > mine then return 0 end
if owner and owner ~= ARGV[1] then
  if epoch == mine or redis.call('EXISTS', ARGV[3] .. owner) == 1 then return 0 end
  redis.call('SREM', ARGV[3] .. owner .. ':rooms', ARGV[4])
end
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'epoch', mine)
redis.call('SADD', KEYS[2], ARGV[4])
return 1
)lua";

}  // namespace

Ownership::Ownership(RedisClient& redis, NodeInfo self, std::chrono::milliseconds ttl,
                     std::string prefix)
    : redis_(redis), self_(std::move(self)), ttl_(ttl), prefix_(std::move(prefix)) {}

bool Ownership::heartbeat() {
  // SET ... GET answers the previous value: nil when the key had expired (or never was).
  const RedisReply previous = redis_.command(
      {"SET", node_key(self_.id), self_.advertise, "PX", std::to_string(ttl_.count()), "GET"});
  redis_.command({"SADD", prefix_ + "nodes", self_.id});
  return !previous.is_nil();
}

void Ownership::leave() { redis_.command({"DEL", node_key(self_.id)}); }

std::optional<std::int64_t> Ownership::claim(const std::string& room, std::int64_t store_epoch) {
  const RedisReply reply =
      redis_.eval(kClaim, {room_key(room), rooms_key(self_.id)},
                  {self_.id, std::to_string(store_epoch), prefix_ + "node:", room});
  if (reply.integer < 0) return std::nullopt;
  return reply.integer;
}

bool Ownership::reassert(const std::string& room, std::int64_t epoch) {
  return redis_
             .eval(kReassert, {room_key(room), rooms_key(self_.id)},
                   {self_.id, std::to_string(epoch), prefix_ + "node:", room})
             .integer == 1;
}

bool Ownership::release(const std::string& room, std::int64_t epoch) {
  return redis_
             .eval(kRelease, {room_key(room), rooms_key(self_.id)},
                   {self_.id, std::to_string(epoch), room})
             .integer == 1;
}

std::optional<RoomOwner> Ownership::owner(const std::string& room) {
  const RedisReply reply = redis_.command({"HMGET", room_key(room), "node", "epoch"});
  if (reply.elements.size() != 2 || reply.elements[0].is_nil()) return std::nullopt;
  RoomOwner out;
  out.node = reply.elements[0].text;
  out.epoch = std::stoll(reply.elements[1].text);
  out.node_alive = redis_.command({"EXISTS", node_key(out.node)}).integer == 1;
  return out;
}

std::vector<NodeInfo> Ownership::live_nodes() {
  std::vector<NodeInfo> out;
  for (const RedisReply& node : redis_.command({"SMEMBERS", prefix_ + "nodes"}).elements) {
    const RedisReply advertise = redis_.command({"GET", node_key(node.text)});
    if (!advertise.is_nil()) out.push_back({node.text, advertise.text});
  }
  return out;
}

std::optional<std::string> Ownership::advertise(const std::string& node) {
  const RedisReply reply = redis_.command({"GET", node_key(node)});
  if (reply.is_nil()) return std::nullopt;
  return reply.text;
}

std::vector<OrphanRoom> Ownership::orphans() {
  std::vector<OrphanRoom> out;
  for (const RedisReply& node : redis_.command({"SMEMBERS", prefix_ + "nodes"}).elements) {
    if (redis_.command({"EXISTS", node_key(node.text)}).integer == 1) continue;
    for (const RedisReply& room : redis_.command({"SMEMBERS", rooms_key(node.text)}).elements) {
      out.push_back({room.text, node.text});
    }
  }
  return out;
}

}  // namespace parlor::server
