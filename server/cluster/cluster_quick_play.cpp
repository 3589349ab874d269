#include "server/cluster/cluster_quick_play.h"

#include <algorithm>
#include <set>

#include "games/registry.h"
#include "protocol/encode.h"
#include "server/log.h"
#include "server/log_throttle.h"
#include "server/server_state.h"
#include "server/thread_name.h"

namespace parlor::server {

namespace {

using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kQuickPlayRedisTimeout = 1000ms;

LogThrottle& quick_play_log() {
  static LogThrottle throttle(std::chrono::seconds(5));
  return throttle;
}

// Redis's clock in ms, as an integer's text (Lua would write a large number in exponent
// form).
constexpr const char* kNow = R"(
local function now()
  local t = redis.call('TIME')
  return string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
)";

// ARGV: prefix, ticket ttl ms, since ('' for Redis's now; else a rewrite of a lost ticket),
// key, player, then the ticket's other fields as name/value pairs.
// Returns {since, position, waiting, the queue's oldest since}; {-1}: a live node's ticket holds
// the player;
// {-2}: a rewrite of a ticket claimed meanwhile (the player is being seated).
const std::string kEnqueue = std::string(kNow) + R"(
local p, player = ARGV[1], ARGV[5]
local ticket = p .. 'qp:ticket:' .. player
local node = redis.call('HGET', ticket, 'node')
if node then
  if redis.call('EXISTS', p .. 'node:' .. node) == 1 then return {-1} end
  local old = redis.call('HGET', ticket, 'key')
  if old then redis.call('ZREM', p .. 'qp:queue:' .. old, player) end
  redis.call('DEL', ticket)
end
local since = ARGV[3]
if since == '' then
  since = now()
elseif redis.call('EXISTS', p .. 'qp:taken:' .. player) == 1 then
  return {-2}
end
local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', ticket, 'since', since, 'key', ARGV[4], unpack(fields))
redis.call('PEXPIRE', ticket, ARGV[2])
local queue = p .. 'qp:queue:' .. ARGV[4]
redis.call('ZADD', queue, since, player)
redis.call('SADD', p .. 'qp:buckets', ARGV[4])
redis.call('DEL', p .. 'qp:taken:' .. player)
local oldest = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')[2]
return {since, redis.call('ZRANK', queue, player) + 1, redis.call('ZCARD', queue), oldest}
)";

// ARGV: prefix, player, node, generation ('0': any). Removes the ticket if that node's
// connection holds it. Returns 1 when it did.
constexpr const char* kCancel = R"(
local p, player = ARGV[1], ARGV[2]
local ticket = p .. 'qp:ticket:' .. player
if redis.call('HGET', ticket, 'node') ~= ARGV[3] then return 0 end
if ARGV[4] ~= '0' and redis.call('HGET', ticket, 'gen') ~= ARGV[4] then return 0 end
local key = redis.call('HGET', ticket, 'key')
redis.call('DEL', ticket)
if key then
  local queue = p .. 'qp:queue:' .. key
  redis.call('ZREM', queue, player)
  if redis.call('ZCARD', queue) == 0 then redis.call('SREM', p .. 'qp:buckets', key) end
end
return 1
)";

// ARGV: prefix, player, node, generation, ttl ms. 1: renewed; 0: not this connection's any
// more; 2: claimed for a table; 3: gone (Redis lost it).
constexpr const char* kRefresh = R"(
local p, player = ARGV[1], ARGV[2]
local ticket = p .. 'qp:ticket:' .. player
local node = redis.call('HGET', ticket, 'node')
if node then
  if node == ARGV[3] and redis.call('HGET', ticket, 'gen') == ARGV[4] then
    redis.call('PEXPIRE', ticket, ARGV[5])
    return 1
  end
  return 0
end
if redis.call('EXISTS', p .. 'qp:taken:' .. player) == 1 then return 2 end
return 3
)";

// ARGV: prefix, node, ttl ms. 1 while this node holds the former's lease.
constexpr const char* kLease = R"(
local key = ARGV[1] .. 'qp:former'
local holder = redis.call('GET', key)
if holder and holder ~= ARGV[2] then return 0 end
redis.call('SET', key, ARGV[2], 'PX', ARGV[3])
return 1
)";

// ARGV: prefix. {now, player, {ticket fields}, player, {...}, ...}; queue entries whose ticket
// expired are removed, and empty queues from the bucket list.
const std::string kRead = std::string(kNow) + R"(
local p = ARGV[1]
local out = {now()}
for _, key in ipairs(redis.call('SMEMBERS', p .. 'qp:buckets')) do
  local queue = p .. 'qp:queue:' .. key
  for _, player in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
    local fields = redis.call('HGETALL', p .. 'qp:ticket:' .. player)
    if #fields == 0 then
      redis.call('ZREM', queue, player)
    else
      out[#out + 1] = player
      out[#out + 1] = fields
    end
  end
  if redis.call('ZCARD', queue) == 0 then redis.call('SREM', p .. 'qp:buckets', key) end
end
return out
)";

// ARGV: prefix, taken ttl ms, then player/since pairs. Takes every ticket of a table if all
// are still there as read (1), else none (0).
constexpr const char* kClaim = R"(
local p = ARGV[1]
for i = 3, #ARGV, 2 do
  if redis.call('HGET', p .. 'qp:ticket:' .. ARGV[i], 'since') ~= ARGV[i + 1] then return 0 end
end
for i = 3, #ARGV, 2 do
  local ticket = p .. 'qp:ticket:' .. ARGV[i]
  local key = redis.call('HGET', ticket, 'key')
  redis.call('DEL', ticket)
  redis.call('SET', p .. 'qp:taken:' .. ARGV[i], '1', 'PX', ARGV[2])
  local queue = p .. 'qp:queue:' .. key
  redis.call('ZREM', queue, ARGV[i])
  if redis.call('ZCARD', queue) == 0 then redis.call('SREM', p .. 'qp:buckets', key) end
end
return 1
)";

std::string hex_of(const TokenHash& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : hash) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xF]);
  }
  return out;
}

TokenHash hash_of(const std::string& hex) {
  TokenHash hash{};
  const auto digit = [](char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; };
  for (std::size_t i = 0; i < hash.size() && 2 * i + 1 < hex.size(); ++i) {
    hash[i] = static_cast<unsigned char>(digit(hex[2 * i]) * 16 + digit(hex[2 * i + 1]));
  }
  return hash;
}

std::int64_t number(const std::string& text) {
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

ClusterQuickPlay::ClusterQuickPlay(ClusterQuickPlayOptions options, ServerState& state,
                                   QuickPlay& tables)
    : options_(std::move(options)), state_(state), tables_(tables) {}

ClusterQuickPlay::~ClusterQuickPlay() { stop(); }

void ClusterQuickPlay::start() {
  thread_ = std::thread([this] {
    name_this_thread("parlor-matching");
    run();
  });
}

void ClusterQuickPlay::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ClusterQuickPlay::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    try {
      if (!redis_) {
        redis_ = std::make_unique<RedisClient>(options_.redis, kQuickPlayRedisTimeout);
        ownership_ = std::make_unique<Ownership>(*redis_, options_.self, options_.lease,
                                                 options_.key_prefix);
      }
      pass();
    } catch (const RedisError& error) {
      quick_play_log().error(std::string("quick play: the cluster's queues in Redis: ") +
                             error.what());
    } catch (const std::exception& error) {
      // A ticket this version cannot read (written by hand, or by a newer node): the pass
      // ends here and the next one tries again.
      quick_play_log().error(std::string("quick play: a pass failed: ") + error.what());
    }
    lock.lock();
    wake_.wait_for(lock, kPass, [this] { return stopping_; });
  }
}

void ClusterQuickPlay::pass() {
  refresh();
  // A draining node opens no tables: its lease lapses and another node forms them.
  const bool former = !state_.shutting_down() && hold_lease();
  if (former != former_) {
    log_info(former ? "quick play: this node forms the cluster's tables now"
                    : "quick play: another node forms the cluster's tables now");
    former_ = former;
  }
  if (former) form();
}

void ClusterQuickPlay::refresh() {
  std::map<std::string, Local> waiting;
  {
    std::lock_guard lock(mutex_);
    waiting = local_;
  }
  const std::string ttl = std::to_string(3 * options_.lease.count());
  int rewritten = 0;
  for (const auto& [player, local] : waiting) {
    const std::string generation = std::to_string(local.generation);
    // The connection that queued closed, or a newer one of the player took over, before its
    // own cancel could run (a queueing that finished after the session had gone): nobody to
    // seat.
    const auto known = state_.identity().find(player);
    if (!known || !known->connection() || known->generation() != local.generation) {
      redis_->eval(kCancel, {}, {options_.key_prefix, player, options_.self.id, generation});
      std::lock_guard lock(mutex_);
      if (auto it = local_.find(player); it != local_.end() && it->second.since == local.since) {
        local_.erase(it);
        told_.erase(player);
      }
      continue;
    }
    const auto renewed = redis_->eval(
        kRefresh, {}, {options_.key_prefix, player, options_.self.id, generation, ttl});
    if (renewed.integer == 1) continue;
    if (renewed.integer == 3) {
      std::vector<std::string> args{options_.key_prefix, ttl, local.since, local.key, player};
      args.insert(args.end(), local.fields.begin(), local.fields.end());
      const auto again = redis_->eval(kEnqueue, {}, args);
      if (again.elements.size() >= 3) {
        ++rewritten;
        continue;
      }
    }
    // Claimed for a table (its node is told), or queued by a newer connection: not waiting
    // here any more.
    std::lock_guard lock(mutex_);
    if (auto it = local_.find(player); it != local_.end() && it->second.since == local.since) {
      local_.erase(it);
    }
  }
  if (rewritten > 0) {
    log_info("quick play: " + std::to_string(rewritten) +
             " waiting players queued again (Redis had lost their tickets)");
  }
}

bool ClusterQuickPlay::hold_lease() {
  const auto held = redis_->eval(
      kLease, {}, {options_.key_prefix, options_.self.id, std::to_string(options_.lease.count())});
  return held.integer == 1;
}

void ClusterQuickPlay::form() {
  const RedisReply read = redis_->eval(kRead, {}, {options_.key_prefix});
  if (read.elements.empty()) return;
  const std::int64_t now_ms = number(read.elements[0].text);
  struct Ticket {
    std::string player;
    std::map<std::string, std::string> fields;
    std::int64_t since = 0;
  };
  std::vector<Ticket> tickets;
  for (std::size_t i = 1; i + 1 < read.elements.size(); i += 2) {
    Ticket ticket{read.elements[i].text, {}, 0};
    const auto& fields = read.elements[i + 1].elements;
    for (std::size_t f = 0; f + 1 < fields.size(); f += 2) {
      ticket.fields[fields[f].text] = fields[f + 1].text;
    }
    ticket.since = number(ticket.fields["since"]);
    tickets.push_back(std::move(ticket));
  }
  std::map<std::string, std::string> live;  // node id -> advertised address
  for (const NodeInfo& node : ownership_->live_nodes()) live[node.id] = node.advertise;

  std::stable_sort(tickets.begin(), tickets.end(),
                   [](const Ticket& a, const Ticket& b) { return a.since < b.since; });
  Matchmaker matchmaker(options_.bots_after, options_.band);
  const auto now = Matchmaker::Clock::now();
  std::map<std::string, const Ticket*> by_player;
  for (const Ticket& ticket : tickets) {
    const std::string& node = ticket.fields.at("node");
    if (!live.contains(node)) {
      // Its node died: nobody to seat. Only that node's ticket is removed.
      redis_->eval(kCancel, {}, {options_.key_prefix, ticket.player, node, "0"});
      log_info("quick play: " + ticket.player + " no longer waits (node " + node + " is not live)");
      continue;
    }
    const GameInfo* game = find_game(ticket.fields.at("kind"));
    if (!game) continue;  // a game a newer node knows: its nodes form its tables
    Matchmaker::Wish wish{game, static_cast<int>(number(ticket.fields.at("seats"))),
                          Json::parse(ticket.fields.at("options"), nullptr, false),
                          ticket.fields.at("rated") == "1", QuickPlay::teams_of(*game)};
    if (wish.options.is_discarded()) continue;
    double rating = ratings::kInitialRating;
    try {
      rating = std::stod(ticket.fields.at("rating"));
    } catch (const std::exception&) {
    }
    auto player = std::make_shared<Player>(ticket.player, ticket.fields.at("name"),
                                           hash_of(ticket.fields.at("token")));
    // The time it has waited by Redis's clock, on this node's.
    const auto since =
        now - std::chrono::milliseconds(std::max<std::int64_t>(0, now_ms - ticket.since));
    if (matchmaker.enqueue(std::move(player), std::move(wish), since, rating)) {
      by_player[ticket.player] = &ticket;
    }
  }
  const auto matches = matchmaker.take_matches(now);
  const auto standings = matchmaker.standings(now);

  const std::string taken_ttl = std::to_string(6 * options_.lease.count());
  for (const Matchmaker::Match& found : matches) {
    std::vector<std::string> claim{options_.key_prefix, taken_ttl};
    for (const auto& player : found.players) {
      claim.push_back(player->id());
      claim.push_back(by_player.at(player->id())->fields.at("since"));
    }
    if (redis_->eval(kClaim, {}, claim).integer != 1) continue;  // changed: the next pass
    // The players as this node knows them (a member of one of its rooms, or connected here),
    // or as their tickets do.
    Matchmaker::Match match{found.wish, {}, found.bots};
    for (const auto& player : found.players) {
      auto known = state_.identity().find(player->id());
      if (!known) {
        known = player;
        state_.identity().restore(known);
      }
      match.players.push_back(std::move(known));
    }
    QuickPlay::Refusal refusal;
    const auto room = tables_.open_table(match, refusal);
    for (std::size_t seat = 0; seat < match.players.size(); ++seat) {
      const Ticket& ticket = *by_player.at(match.players[seat]->id());
      const std::string& node = ticket.fields.at("node");
      const std::uint64_t generation = static_cast<std::uint64_t>(number(ticket.fields.at("gen")));
      if (room) {
        push(node, live[node], ticket.player, generation, link::QuickPlayPush::kSeated,
             options_.self.advertise + "\n" +
                 protocol::to_wire(QuickPlay::seated_message(match, room->id(), seat)));
      } else {
        push(node, live[node], ticket.player, generation, link::QuickPlayPush::kFailed,
             protocol::to_wire(QuickPlay::failed_message(refusal)));
      }
    }
  }
  for (const Matchmaker::Standing& standing : standings) {
    const Ticket& ticket = *by_player.at(standing.player->id());
    const std::string& node = ticket.fields.at("node");
    push(node, live[node], ticket.player,
         static_cast<std::uint64_t>(number(ticket.fields.at("gen"))),
         link::QuickPlayPush::kStanding, protocol::to_wire(QuickPlay::standing_message(standing)));
  }
}

void ClusterQuickPlay::push(const std::string& node, const std::string& advertise,
                            const std::string& player, std::uint64_t generation,
                            link::QuickPlayPush what, std::string body) {
  link::Message message{link::Kind::kQuickPlay, 0, link::PlayerRef{player, "", {}, generation},
                        static_cast<std::uint16_t>(what), std::move(body)};
  if (node == options_.self.id) return pushed(message);
  if (auto* links = state_.links(); links && !advertise.empty()) {
    links->send_to(advertise, link::encode(message));
  }
}

std::variant<Json, QuickPlay::Refusal> ClusterQuickPlay::enqueue(
    const std::shared_ptr<Player>& player, std::uint64_t generation, const Matchmaker::Wish& wish,
    double rating) {
  const std::string key = Matchmaker::key_of(wish);
  std::vector<std::string> fields{"node",    options_.self.id,
                                  "gen",     std::to_string(generation),
                                  "rating",  std::to_string(rating),
                                  "kind",    wish.game->kind,
                                  "seats",   std::to_string(wish.seats),
                                  "options", wish.options.dump(),
                                  "rated",   wish.rated ? "1" : "0",
                                  "name",    player->name(),
                                  "token",   hex_of(player->token_hash())};
  std::vector<std::string> args{options_.key_prefix, std::to_string(3 * options_.lease.count()), "",
                                key, player->id()};
  args.insert(args.end(), fields.begin(), fields.end());
  RedisReply reply;
  {
    std::lock_guard lock(request_mutex_);
    if (!request_redis_) {
      request_redis_ = std::make_unique<RedisClient>(options_.redis, kQuickPlayRedisTimeout);
    }
    reply = request_redis_->eval(kEnqueue, {}, args);
  }
  if (reply.elements.size() < 3) {
    return QuickPlay::Refusal{protocol::ErrorCode::kAlreadyQueued,
                              "you are already waiting for a table (on this or another "
                              "connection); cancel_quick_play first"};
  }
  const int position = static_cast<int>(reply.elements[1].integer);
  const int waiting = static_cast<int>(reply.elements[2].integer);
  {
    std::lock_guard lock(mutex_);
    local_[player->id()] = Local{generation, key, reply.elements[0].text, std::move(fields)};
    told_[player->id()] = {position, waiting};
  }
  // As Matchmaker::standings: an unrated table opens (with bots) when its oldest player has
  // waited bots_after; a rated player is sure only of its own.
  std::chrono::milliseconds estimate = options_.bots_after;
  if (!wish.rated && options_.bots_after.count() > 0 && reply.elements.size() >= 4) {
    const std::int64_t waited = number(reply.elements[0].text) - number(reply.elements[3].text);
    estimate = std::max(std::chrono::milliseconds(0),
                        options_.bots_after - std::chrono::milliseconds(waited));
  }
  Matchmaker::Standing standing{player, wish, position, waiting, estimate};
  return QuickPlay::standing_message(standing);
}

bool ClusterQuickPlay::cancel(const std::string& player, std::uint64_t generation) {
  {
    std::lock_guard lock(mutex_);
    auto it = local_.find(player);
    if (it == local_.end() || (generation != 0 && it->second.generation != generation)) {
      return false;
    }
    local_.erase(it);
    told_.erase(player);
  }
  std::lock_guard lock(request_mutex_);
  if (!request_redis_) {
    request_redis_ = std::make_unique<RedisClient>(options_.redis, kQuickPlayRedisTimeout);
  }
  return request_redis_
             ->eval(kCancel, {},
                    {options_.key_prefix, player, options_.self.id, std::to_string(generation)})
             .integer == 1;
}

bool ClusterQuickPlay::waiting_here(const std::string& player) const {
  std::lock_guard lock(mutex_);
  return local_.contains(player);
}

void ClusterQuickPlay::pushed(const link::Message& message) {
  auto player = state_.identity().find(message.player.id);
  if (!player) return;
  // Only to the connection that queued: a newer one of the player did not ask.
  auto connection = player->connection();
  if (!connection || player->generation() != message.player.generation) return;
  const auto what = static_cast<link::QuickPlayPush>(message.code);
  if (what == link::QuickPlayPush::kStanding) {
    const Json standing = Json::parse(message.body, nullptr, false);
    if (standing.is_discarded()) return;
    const std::pair<int, int> where{standing.value("position", 0), standing.value("waiting", 0)};
    {
      std::lock_guard lock(mutex_);
      auto it = local_.find(message.player.id);
      // Cancelled meanwhile (or another connection's): nothing to tell.
      if (it == local_.end() || it->second.generation != message.player.generation) return;
      auto& told = told_[message.player.id];
      if (told == where) return;
      told = where;
    }
    connection->send(make_frame(message.body));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    local_.erase(message.player.id);
    told_.erase(message.player.id);
  }
  std::string body = message.body;
  std::string owner;
  if (what == link::QuickPlayPush::kSeated) {
    const auto newline = body.find('\n');
    if (newline == std::string::npos) return;
    owner = body.substr(0, newline);
    body.erase(0, newline + 1);
  }
  connection->send(make_frame(body));
  if (what != link::QuickPlayPush::kSeated) return;
  const Json seated = Json::parse(body, nullptr, false);
  if (seated.is_discarded() || !seated.contains("room")) return;
  // Its room is on the forming node: it resumes there as after an invitation.
  if (auto* links = state_.links()) {
    links->invited(message.player.id, seated["room"].get<std::string>() + "\n" + owner);
  }
}

}  // namespace parlor::server
