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
  Player(std::string id, std::string name, TokenHash token_hash, std::int64_t created_ms = 0,
         std::int64_t last_seen_ms = 0)
      : id_(std::move(id)),
        created_ms_(created_ms),
        name_(std::move(name)),
        token_hash_(token_hash),
        last_seen_ms_(last_seen_ms) {}

  const std::string& id() const { return id_; }
  // Copies: rename and revoke_token change them while rooms and sessions read them.
  std::string name() const;
  TokenHash token_hash() const;
  std::int64_t created_ms() const { return created_ms_; }
  // When the player was last connected (Unix ms): its connection's start or end.
  std::int64_t last_seen_ms() const;
  void set_name(std::string name);
  // Notes `now_ms` as the last-seen time of a player still connected.
  void touch(std::int64_t now_ms);

  // Queues a frame on the player's live connection, if any.
  void send(const Frame& frame) const;
  bool connected() const;
  // The live connection, or null.
  std::shared_ptr<Connection> connection() const;
  // Makes `connection` the live one; returns the previous live connection (to be closed).
  // Both attach and detach note the time as the player's last-seen time.
  std::shared_ptr<Connection> attach(const std::shared_ptr<Connection>& connection);
  // Cluster mode: as attach, unless a later hello of the player (a greater `generation`,
  // ClusterNode::next_generation) was attached here already; then `connection` is older
  // than the player's live one and is not attached (`attached` false). Generation 0 (a hello
  // whose order is unknown: a node before generations) is attached as by attach.
  struct Attached {
    bool attached = false;
    std::shared_ptr<Connection> previous;
  };
  Attached attach_in_order(const std::shared_ptr<Connection>& connection, std::uint64_t generation);
  // Whether a connection of `generation` is older than the latest one attached here.
  bool superseded(std::uint64_t generation) const;
  // The latest generation attached here (0: none known).
  std::uint64_t generation() const;
  // Forgets `connection` if it is still the live one; returns whether it was.
  bool detach(const Connection* connection);

  // Whether the player is away, has been for longer than `idle_ms`, and sits in or watches
  // no room here: then its token no longer opens the identity, and the identity may be
  // forgotten (docs/OPERATIONS.md, "Player retention"). idle_ms 0: never.
  bool idle_past(std::int64_t now_ms, std::int64_t idle_ms) const;

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
  friend class Identity;  // replaces the token hash under its own lock (replace_token)

  const std::string id_;
  const std::int64_t created_ms_;
  mutable std::mutex mutex_;
  std::string name_;
  TokenHash token_hash_;
  std::int64_t last_seen_ms_;
  std::weak_ptr<Connection> connection_;
  std::uint64_t generation_ = 0;
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
  // Gives `player` a fresh token (returned in `token`): the old one stops working at once.
  void replace_token(const std::shared_ptr<Player>& player, std::string& token);
  // Takes what another node may have changed (cluster mode: the shared store's record):
  // the token hash, the name, a later last-seen time.
  void refresh(const std::shared_ptr<Player>& player, const TokenHash& token_hash, std::string name,
               std::int64_t last_seen_ms);
  // Forgets every player idle_past(now_ms, idle_ms); returns how many. Rooms and sessions
  // that still hold one keep it alive; only its token and its place here go.
  std::size_t evict_idle(std::int64_t now_ms, std::int64_t idle_ms);
  // Players known now.
  std::size_t size() const;
  // The players with a live connection.
  std::vector<std::shared_ptr<Player>> connected_players() const;

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

// The wall clock in Unix milliseconds: players' created and last-seen times.
std::int64_t unix_now_ms();

// Random identifiers: `bytes` random bytes, hex-encoded (RAND_bytes).
std::string random_hex(std::size_t bytes);
std::uint64_t random_u64();

}  // namespace parlor::server
