// The store in a PostgreSQL database (`--store postgres://user:pass@host:port/db`), written by
// one writer thread with group commit, like SqliteStore. Schema, errors: README.md here.
//
// The writer takes what is queued — waiting up to `batch_window` after the oldest write, or
// until `max_batch` writes are queued — and sends it as ONE transaction in one pipelined
// round trip (BEGIN, every write's statements, COMMIT, Sync), then calls the batch's
// callbacks in order. When a statement is refused (a constraint, bad data) the server
// rolls the transaction back and says which one; that write fails alone and the rest of the
// batch is sent again. The callers' threads only push onto the queue.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "server/store/store.h"

namespace parlor::server {

namespace pg {
class Conn;
struct Step;
}  // namespace pg

// Whether `--store` names a PostgreSQL database (postgres:// or postgresql://).
bool is_postgres_url(std::string_view store);
// The URL with its password replaced by "***": the only form any message or log may show.
std::string redact_store_url(std::string_view url);

struct PostgresStoreOptions {
  std::string url;  // postgres://user:password@host:port/database (libpq's URI syntax)
  // Group commit: how long the writer waits after the oldest queued write for more to join
  // its batch, and the most writes one transaction takes.
  std::chrono::microseconds batch_window{500};
  std::size_t max_batch = 512;
  // The longest the writer or a load waits for the server once connected (and the connect
  // timeout unless the URL sets one). A server that stops answering fails the batch.
  std::chrono::milliseconds io_timeout{30'000};
  // How long opening waits for another parlor-server to release the database (a restart
  // may begin before the old server's connection is gone).
  std::chrono::milliseconds lock_wait{5'000};
  // One server per database (an advisory lock), unless the servers are cluster nodes that
  // share it: each room's writes are then fenced by its epoch.
  bool exclusive = true;
  // Where run-time write failures are reported (default: stderr).
  std::function<void(std::string_view)> log_error;
};

class PostgresStore final : public Store {
 public:
  // Connects, takes the database (one server per database), checks and migrates the schema
  // and starts the writer. Throws StoreError naming the server and database.
  explicit PostgresStore(PostgresStoreOptions options);
  // close().
  ~PostgresStore() override;
  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  // Commits everything queued, stops the writer and disconnects. Later writes are reported
  // with on_durable(false) at once, on the caller's thread. Idempotent.
  void close();

  // `database "parlor" on PostgreSQL server host:port`, for messages.
  const std::string& target() const { return target_; }
  // How often a batch was sent again after the server refused a statement in it.
  std::uint64_t resent_batches() const { return resent_batches_.load(); }

  void save_player(PlayerRecord player, DurableCallback on_durable) override;
  void save_room(RoomRecord room, DurableCallback on_durable) override;
  void append_move(MoveRecord move, DurableCallback on_durable) override;
  void record_rated_game(RatedGameRecord game, DurableCallback on_durable) override;
  void prune_ended_rooms(UnixMillis before_ms) override;
  void prune_idle_players(UnixMillis before_ms) override;
  void flush() override;
  LoadedState load() override;
  std::optional<RoomHistory> load_room(const std::string& room_id) override;
  std::vector<RatingRow> load_leaderboard(const std::string& kind, int limit) override;
  std::optional<PlayerRatings> load_player_ratings(const std::string& player_id,
                                                   int games) override;
  StoreStats stats() const override;

 private:
  struct FlushMarker {};
  struct PruneBefore {
    UnixMillis before_ms = 0;
  };
  struct PrunePlayers {
    UnixMillis before_ms = 0;
  };
  struct Write {
    std::variant<FlushMarker, PlayerRecord, RoomRecord, MoveRecord, PruneBefore, RatedGameRecord,
                 PrunePlayers>
        record;
    DurableCallback on_durable;
    std::chrono::steady_clock::time_point queued_at;
  };

  void enqueue(Write write);
  void run_writer();
  // Commits `batch` as one transaction (sent again without any write the server refuses);
  // ok[i] says whether write i is durable. Returns whether a transaction committed.
  bool commit_batch(std::vector<Write>& batch, std::vector<char>& ok);
  // commit_batch for writes that are not rated games: one pipelined transaction.
  bool commit_plain(std::vector<Write>& batch, std::vector<char>& ok);
  // A rated game in a transaction of its own: it reads ratings (locking their rows) before it
  // writes them, which a pipeline cannot. Returns ok's code for it.
  char commit_rated(const RatedGameRecord& game);
  // The statements of one write, appended to `steps`; throws on a record that cannot be
  // written.
  static void add_steps(const Write& write, std::vector<pg::Step>& steps);
  static std::string describe(const Write& write);
  // The writer's connection: synchronous commit, the database's lock, prepared statements.
  std::unique_ptr<pg::Conn> connect_writer(bool at_open);
  template <typename Body>
  auto with_reader(Body body);
  void report(std::string_view message) const;

  PostgresStoreOptions options_;
  std::string target_;
  std::unique_ptr<pg::Conn> writer_conn_;  // the writer thread's after start; null: reconnect
  std::unique_ptr<pg::Conn> reader_conn_;  // load() and load_room(); null: reconnect
  std::mutex reader_mutex_;                // guards the reader's connection and reader_closed_
  bool reader_closed_ = false;

  mutable std::mutex mutex_;  // guards the queue and the counters below
  std::condition_variable wake_;
  std::deque<Write> queue_;
  std::size_t flushes_queued_ = 0;  // a flush waiting skips the batch window
  bool accepting_ = true;
  bool stopping_ = false;
  StoreStats stats_;

  // Writer thread only: games (room, game number, owner's epoch) with a move that was not
  // stored; their later moves are refused. The epoch is part of it: a room of a cluster that
  // is loaded again after a failed write (at a newer epoch) goes on from what was stored.
  std::set<std::tuple<std::string, int, std::int64_t>> broken_games_;
  // Writer thread only: rooms refused by fencing, and the newest epoch refused. Later writes
  // of the room at that epoch or older fail as kFenced without a round trip.
  std::map<std::string, std::int64_t> fenced_rooms_;
  std::atomic<std::uint64_t> resent_batches_{0};
  std::thread writer_;
};

}  // namespace parlor::server
