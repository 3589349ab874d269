// Players and their reconnect tokens.
//
// A token is 128 random bits from OpenSSL's RAND_bytes, given only to its owner in
// `welcome`. The server keeps only its SHA-256, so neither memory dumps nor logs hold a
// usable token; a presented token is hashed and compared in constant time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/connection.h"

namespace parlor::server {

using TokenHash = std::array<unsigned char, 32>;

class Player {
 public:
  Player(std::string id, std::string name, TokenHash token_hash)
      : id_(std::move(id)), name_(std::move(name)), token_hash_(token_hash) {}

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  const TokenHash& token_hash() const { return token_hash_; }

  // Queues a frame on the player's live connection, if any.
  void send(const Frame& frame) const;
  bool connected() const;
  // The live connection, or null.
  std::shared_ptr<Connection> connection() const;
  // Makes `connection` the live one; returns the previous live connection (to be closed).
  std::shared_ptr<Connection> attach(const std::shared_ptr<Connection>& connection);
  // Forgets `connection` if it is still the live one; returns whether it was.
  bool detach(const Connection* connection);

  // Rooms the player sits in or watches, for resuming after a reconnect.
  void add_room(const std::string& room);
  void remove_room(const std::string& room);
  std::vector<std::string> rooms() const;

  // Unfinished rooms this player created (the too_many_rooms limit).
  int open_rooms_created() const;
  void change_open_rooms_created(int delta);

  // Players whose chat this player no longer receives (mute / unmute; in memory only).
  // mute() returns false when `player_id` was muted already, unmute() when it was not.
  bool mute(const std::string& player_id);
  bool unmute(const std::string& player_id);
  bool mutes(const std::string& player_id) const;

 private:
  const std::string id_;
  const std::string name_;
  const TokenHash token_hash_;
  mutable std::mutex mutex_;
  std::weak_ptr<Connection> connection_;
  std::set<std::string> rooms_;
  std::set<std::string> muted_;
  int open_rooms_created_ = 0;
};

class Identity {
 public:
  // A new player with a fresh token (returned in `token`, never stored).
  std::shared_ptr<Player> create(const std::string& name, std::string& token);
  // The player a token belongs to, or null.
  std::shared_ptr<Player> resume(const std::string& token) const;
  std::shared_ptr<Player> find(const std::string& player_id) const;
  // Registers a player restored from storage.
  void restore(const std::shared_ptr<Player>& player);

  // An administrator banned the player: its token is refused from then on (in memory: a
  // restart forgets bans). Returns false when it was banned already.
  bool ban(const std::string& player_id);
  bool banned(const std::string& player_id) const;

  static TokenHash hash_token(const std::string& token);

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Player>> by_id_;
  std::unordered_map<std::string, std::shared_ptr<Player>> by_hash_;  // key: hash bytes
  std::set<std::string> banned_;
};

// Random identifiers: `bytes` random bytes, hex-encoded (RAND_bytes).
std::string random_hex(std::size_t bytes);
std::uint64_t random_u64();

}  // namespace parlor::server
