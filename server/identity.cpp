#include "server/identity.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace parlor::server {

std::string Player::name() const {
  std::lock_guard lock(mutex_);
  return name_;
}

TokenHash Player::token_hash() const {
  std::lock_guard lock(mutex_);
  return token_hash_;
}

std::int64_t Player::last_seen_ms() const {
  std::lock_guard lock(mutex_);
  return last_seen_ms_;
}

void Player::set_name(std::string name) {
  std::lock_guard lock(mutex_);
  name_ = std::move(name);
}

void Player::touch(std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  last_seen_ms_ = std::max(last_seen_ms_, now_ms);
}

bool Player::idle_past(std::int64_t now_ms, std::int64_t idle_ms) const {
  if (idle_ms <= 0) return false;
  std::lock_guard lock(mutex_);
  return connection_.expired() && rooms_.empty() && now_ms - last_seen_ms_ > idle_ms;
}

void Player::send(const Frame& frame) const {
  if (auto live = connection()) live->send(frame);
}

std::shared_ptr<Connection> Player::connection() const {
  std::lock_guard lock(mutex_);
  return connection_.lock();
}

bool Player::connected() const {
  std::lock_guard lock(mutex_);
  return !connection_.expired();
}

std::shared_ptr<Connection> Player::attach(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(mutex_);
  auto previous = connection_.lock();
  connection_ = connection;
  last_seen_ms_ = std::max(last_seen_ms_, unix_now_ms());
  return previous;
}

Player::Attached Player::attach_in_order(const std::shared_ptr<Connection>& connection,
                                         std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  if (generation != 0 && generation < generation_) return Attached{false, nullptr};
  generation_ = std::max(generation_, generation);
  auto previous = connection_.lock();
  connection_ = connection;
  last_seen_ms_ = std::max(last_seen_ms_, unix_now_ms());
  return Attached{true, std::move(previous)};
}

bool Player::superseded(std::uint64_t generation) const {
  std::lock_guard lock(mutex_);
  return generation != 0 && generation < generation_;
}

std::uint64_t Player::generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

bool Player::detach(const Connection* connection) {
  std::lock_guard lock(mutex_);
  auto live = connection_.lock();
  if (live && live.get() != connection) return false;
  connection_.reset();
  last_seen_ms_ = std::max(last_seen_ms_, unix_now_ms());
  return true;
}

void Player::add_room(const std::string& room) {
  std::lock_guard lock(mutex_);
  rooms_.insert(room);
}

void Player::remove_room(const std::string& room) {
  std::lock_guard lock(mutex_);
  rooms_.erase(room);
}

std::vector<std::string> Player::rooms() const {
  std::lock_guard lock(mutex_);
  return {rooms_.begin(), rooms_.end()};
}

int Player::open_rooms_created() const {
  std::lock_guard lock(mutex_);
  return open_rooms_created_;
}

void Player::change_open_rooms_created(int delta) {
  std::lock_guard lock(mutex_);
  open_rooms_created_ += delta;
}

bool Player::mute(const std::string& player_id) {
  std::lock_guard lock(mutex_);
  return muted_.insert(player_id).second;
}

bool Player::unmute(const std::string& player_id) {
  std::lock_guard lock(mutex_);
  return muted_.erase(player_id) > 0;
}

bool Player::mutes(const std::string& player_id) const {
  std::lock_guard lock(mutex_);
  return muted_.contains(player_id);
}

TokenHash Identity::hash_token(const std::string& token) {
  TokenHash out{};
  unsigned int length = 0;
  if (EVP_Digest(token.data(), token.size(), out.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return out;
}

std::shared_ptr<Player> Identity::create(const std::string& name, std::string& token) {
  token = random_hex(16);  // 128 bits
  const TokenHash hash = hash_token(token);
  const std::int64_t now_ms = unix_now_ms();
  auto player = std::make_shared<Player>("p" + random_hex(6), name, hash, now_ms, now_ms);
  std::lock_guard lock(mutex_);
  by_id_[player->id()] = player;
  by_hash_[std::string(hash.begin(), hash.end())] = player;
  return player;
}

std::shared_ptr<Player> Identity::resume(const std::string& token) const {
  const TokenHash hash = hash_token(token);
  std::shared_ptr<Player> player;
  {
    std::lock_guard lock(mutex_);
    auto it = by_hash_.find(std::string(hash.begin(), hash.end()));
    if (it == by_hash_.end()) return nullptr;
    player = it->second;
  }
  // The map lookup is keyed by a hash, which tells an attacker nothing about the token;
  // the final comparison is constant-time all the same.
  const TokenHash held = player->token_hash();
  if (CRYPTO_memcmp(held.data(), hash.data(), hash.size()) != 0) return nullptr;
  return player;
}

std::shared_ptr<Player> Identity::find(const std::string& player_id) const {
  std::lock_guard lock(mutex_);
  auto it = by_id_.find(player_id);
  return it == by_id_.end() ? nullptr : it->second;
}

void Identity::restore(const std::shared_ptr<Player>& player) {
  std::lock_guard lock(mutex_);
  by_id_[player->id()] = player;
  const TokenHash hash = player->token_hash();
  by_hash_[std::string(hash.begin(), hash.end())] = player;
}

void Identity::replace_token(const std::shared_ptr<Player>& player, std::string& token) {
  token = random_hex(16);
  const TokenHash fresh = hash_token(token);
  std::lock_guard lock(mutex_);
  TokenHash old;
  {
    std::lock_guard player_lock(player->mutex_);
    old = player->token_hash_;
    player->token_hash_ = fresh;
  }
  by_hash_.erase(std::string(old.begin(), old.end()));
  by_hash_[std::string(fresh.begin(), fresh.end())] = player;
}

void Identity::refresh(const std::shared_ptr<Player>& player, const TokenHash& token_hash,
                       std::string name, std::int64_t last_seen_ms) {
  std::lock_guard lock(mutex_);
  TokenHash old;
  {
    std::lock_guard player_lock(player->mutex_);
    old = player->token_hash_;
    player->token_hash_ = token_hash;
    player->name_ = std::move(name);
    player->last_seen_ms_ = std::max(player->last_seen_ms_, last_seen_ms);
  }
  if (old == token_hash) return;
  by_hash_.erase(std::string(old.begin(), old.end()));
  by_hash_[std::string(token_hash.begin(), token_hash.end())] = player;
}

std::size_t Identity::evict_idle(std::int64_t now_ms, std::int64_t idle_ms) {
  if (idle_ms <= 0) return 0;
  std::lock_guard lock(mutex_);
  std::size_t evicted = 0;
  for (auto it = by_id_.begin(); it != by_id_.end();) {
    const std::shared_ptr<Player>& player = it->second;
    if (!player->idle_past(now_ms, idle_ms)) {
      ++it;
      continue;
    }
    const TokenHash hash = player->token_hash();
    by_hash_.erase(std::string(hash.begin(), hash.end()));
    it = by_id_.erase(it);
    ++evicted;
  }
  return evicted;
}

std::size_t Identity::size() const {
  std::lock_guard lock(mutex_);
  return by_id_.size();
}

std::vector<std::shared_ptr<Player>> Identity::connected_players() const {
  std::vector<std::shared_ptr<Player>> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, player] : by_id_) {
    if (player->connected()) out.push_back(player);
  }
  return out;
}

std::int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool Identity::ban(const std::string& player_id) {
  std::lock_guard lock(mutex_);
  return banned_.insert(player_id).second;
}

bool Identity::banned(const std::string& player_id) const {
  std::lock_guard lock(mutex_);
  return banned_.contains(player_id);
}

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::uint64_t random_u64() {
  std::uint64_t value = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof value) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return value;
}

}  // namespace parlor::server
