// The embedded store: one SQLite file in WAL mode in the data directory, written with group
// commit. Durability and schema: README.md beside this file.
//
// Whoever commits takes what is queued, commits it as ONE transaction (one fsync of the WAL for
// the whole batch), then calls the batch's callbacks in order. An event loop's thread
// (EndOfPassCommits) commits at the end of each pass of its loop what its handlers queued, and
// whatever was queued behind it (commit_pending). The writer thread commits the rest — flushes,
// prunes, writes from other threads — waiting up to `batch_window` after the oldest write, or
// until `max_batch` writes are queued. One lock (commit_mutex_) lets one of them commit at a
// time, so batches and their callbacks keep the queue's order.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "server/store/store.h"

namespace parlor::server {

namespace sqlite {
class Db;
}

struct SqliteStoreOptions {
  std::filesystem::path data_dir = "./data";  // created if missing
  std::string file_name = "parlor.db";
  // kFull: an acknowledged write survives a power loss. kNormal: it survives a process crash
  // but the last commits may be lost on a power loss or OS crash (README.md).
  enum class Synchronous { kFull, kNormal } synchronous = Synchronous::kFull;
  // Group commit: how long the writer waits after the oldest queued write for more to join
  // its batch, and the most writes one transaction takes.
  std::chrono::microseconds batch_window{500};
  std::size_t max_batch = 512;
  bool quick_check_at_open = true;  // PRAGMA quick_check: reads the whole file once
  // move_log is trimmed up to the first row of its oldest live game. A live game whose first
  // row falls more than max(log_slack, 4 x the live games' rows) rows behind the log's end is
  // copied to the end, so an idle game does not pin the log (README.md).
  std::size_t log_slack = 65536;
  // Where run-time write failures are reported (default: stderr).
  std::function<void(std::string_view)> log_error;
};

class SqliteStore final : public Store {
 public:
  // Creates the data directory, locks it against a second server, opens, checks and migrates
  // the file and starts the writer. Throws StoreError with a message naming the file.
  explicit SqliteStore(SqliteStoreOptions options);
  // close().
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  // Commits everything queued, stops the writer and closes the file. Later writes are
  // reported with on_durable(false) at once, on the caller's thread. Idempotent.
  void close();

  const std::filesystem::path& file() const { return file_; }

  void save_player(PlayerRecord player, DurableCallback on_durable) override;
  void save_room(RoomRecord room, DurableCallback on_durable) override;
  void append_move(MoveRecord move, DurableCallback on_durable) override;
  void record_rated_game(RatedGameRecord game, DurableCallback on_durable) override;
  void prune_ended_rooms(UnixMillis before_ms) override;
  void prune_idle_players(UnixMillis before_ms) override;
  void flush() override;
  bool commits_at_end_of_pass() const override { return true; }
  void commit_pending() override;
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
    // False for a record queued by an event loop's thread, which commits it at the end of its
    // pass: the writer neither wakes for it nor takes it unless it has work of its own first.
    bool for_writer = true;
  };
  struct Statements;

  void enqueue(Write write);
  void run_writer();
  // A player, room, move or rated game: not a flush marker or a prune, which are the writer's.
  static bool is_record(const Write& write);
  // Moves up to max_batch writes from the queue's front into `batch` (mutex_ held). With
  // `records_only`, stops before the first flush marker or prune: those are the writer's,
  // which they woke, and a write is never taken ahead of one queued before it.
  void take_batch(std::vector<Write>& batch, bool records_only);
  // Commits `batch`, counts it and calls its callbacks in order (commit_mutex_ held).
  void commit_and_report(std::vector<Write>& batch, std::vector<char>& ok);
  // Commits `batch` as one transaction; ok[i] says whether write i is durable. False when the
  // transaction did not commit.
  bool commit_batch(std::vector<Write>& batch, std::vector<char>& ok);
  bool write_one(const Write& write);
  void write_player(const PlayerRecord& player);
  void write_room(const RoomRecord& room);
  void write_move(const MoveRecord& move);
  void write_rated_game(const RatedGameRecord& game);
  struct LiveGame;
  static std::string rowid_list(const LiveGame& game);
  void archive(const std::string& room_id, const LiveGame& game);
  void trim_log();
  void rebuild_live();
  void report(std::string_view message) const;

  SqliteStoreOptions options_;
  std::filesystem::path file_;
  int lock_fd_ = -1;
  // Held by whichever thread commits a batch, the writer or an event loop's (commit_pending):
  // it guards writer_db_, statements_ and the committing state below, and keeps batches and
  // their callbacks in queue order. Taken before mutex_, never while holding it.
  std::mutex commit_mutex_;
  std::unique_ptr<sqlite::Db> writer_db_;  // used only under commit_mutex_ after start
  std::unique_ptr<Statements> statements_;
  std::unique_ptr<sqlite::Db> reader_db_;
  std::mutex reader_mutex_;

  mutable std::mutex mutex_;  // guards the queue and the counters below
  std::condition_variable wake_;
  std::deque<Write> queue_;
  std::size_t flushes_queued_ = 0;  // a flush waiting skips the batch window
  std::size_t writer_work_ = 0;     // queued writes that are the writer's (for_writer)
  // A pass found the commit lock held and left its writes to the holder: the writer, once it
  // lets go, takes what is queued even if none of it is its own.
  bool pass_skipped_ = false;
  bool accepting_ = true;
  bool stopping_ = false;
  StoreStats stats_;

  // Under commit_mutex_: games whose log has a failed move; their later moves are refused.
  std::set<std::pair<std::string, int>> broken_games_;

  // Under commit_mutex_ (and the constructor): the live game of each room — its current game
  // while the room is waiting or playing — and where its moves are in move_log. They stay
  // there until the room record that ends the game copies them into `moves` (archive()).
  struct LiveGame {
    explicit LiveGame(int number) : game_number(number) {}
    int game_number;
    std::int64_t max_seq = std::numeric_limits<std::int64_t>::min();
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;  // (seq, log rowid), append order
  };
  std::unordered_map<std::string, LiveGame> live_;
  std::size_t live_rows_ = 0;              // rows of all live games
  std::optional<std::int64_t> log_floor_;  // no row of move_log is below it; nullopt: empty
  std::int64_t log_tail_ = 0;              // the last rowid appended
  bool archived_in_batch_ = false;         // trim the log at the end of this batch
  unsigned commits_since_trim_ = 0;
  bool live_stale_ = false;  // a batch was rolled back: rebuild live_ from the file
  std::thread writer_;
};

}  // namespace parlor::server
