// What cluster mode asks of PostgreSQL besides the store's write queue: finding the rooms of
// dead nodes, fencing a room for its new owner, loading that one room, and finding a player
// by token when they resume on a node that has not seen them. Blocking calls on a connection
// of their own: the cluster's thread and the blocking pool call them, never a room's strand.
//
// Fencing (docs/ARCHITECTURE.md, "Cluster mode"): a room row carries its owner node and
// epoch. fence() raises the epoch in one UPDATE; from its commit on, the triggers of schema
// version 2 refuse every write that carries an older epoch, in the writing transaction
// itself. The room is loaded after the fence, so it holds every move the old owner stored.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/store/store.h"

namespace parlor::server {

namespace pg {
class Conn;
}

// An unfinished room whose owner is not among the live nodes.
struct OwnedRoom {
  std::string room;
  std::string owner;
  std::int64_t epoch = 0;
};

// A room taken over: its record and current game's moves, the players seated in it (and its
// creator, and its spectators), and the ids of its spectators that the store knows.
struct TakenRoom {
  LoadedRoom room;
  std::vector<PlayerRecord> players;
  std::vector<std::string> spectators;
};

class PostgresCluster {
 public:
  // Connects lazily; `url` as for PostgresStore (which has already migrated the schema).
  PostgresCluster(std::string url, std::chrono::milliseconds io_timeout);
  ~PostgresCluster();
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  // Unfinished rooms whose owner is none of `live_nodes`, leaving out the rooms in `held`
  // (at most `limit`, oldest first). A node passes the rooms it serves as `held`: listing
  // them would fill the limit and hide the orphans behind them. Throws StoreError.
  std::vector<OwnedRoom> rooms_without_live_owner(const std::vector<std::string>& live_nodes,
                                                  const std::vector<std::string>& held, int limit);
  // Makes `node` the owner of `room` at `epoch`, if the room is unfinished and its stored
  // epoch is older. Returns whether it did. Throws StoreError.
  bool fence(const std::string& room, const std::string& node, std::int64_t epoch);
  // The unfinished room with its current game's moves and its seated players, or nullopt
  // (finished, or gone). `spectators`: ids of players who watched it (the cluster's
  // directory keeps them); their records are loaded too. Throws StoreError.
  std::optional<TakenRoom> load_room(const std::string& room,
                                     const std::vector<std::string>& spectators = {});
  // The stored epoch and owner of the room, or nullopt. Throws StoreError.
  std::optional<OwnedRoom> owner(const std::string& room);
  // The player whose token has this hash, or nullopt. Throws StoreError.
  std::optional<PlayerRecord> find_player(const TokenHash& token_hash);
  // The secret every node of the cluster presents on its links to the others: the first
  // node that asks stores its `candidate` (random), and every node gets that one. Kept with
  // the rooms: whoever can read the database can read every hand anyway. Throws StoreError.
  std::string link_secret(const std::string& candidate);

 private:
  // Runs `body` on the connection (connecting first), once more on a fresh connection when
  // the first was found broken.
  template <typename Body>
  auto with_conn(Body body);

  std::string url_;
  std::chrono::milliseconds io_timeout_;
  std::string target_;
  std::mutex mutex_;
  std::unique_ptr<pg::Conn> conn_;
};

}  // namespace parlor::server
