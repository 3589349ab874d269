#include "server/identity.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace parlor::server {

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
  return previous;
}

bool Player::detach(const Connection* connection) {
  std::lock_guard lock(mutex_);
  auto live = connection_.lock();
  if (live && live.get() != connection) return false;
  connection_.reset();
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
  auto player = std::make_shared<Player>("p" + random_hex(6), name, hash);
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
  if (CRYPTO_memcmp(player->token_hash().data(), hash.data(), hash.size()) != 0) return nullptr;
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
  const auto& hash = player->token_hash();
  by_hash_[std::string(hash.begin(), hash.end())] = player;
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
