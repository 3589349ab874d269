// The embedded store: one SQLite file in WAL mode in the data directory and its redo log,
// written with group commit. Durability and schema: README.md beside this file.
//
// Whoever commits takes what is queued and makes it durable as one frame of the redo log (one
// pwrite and one fdatasync for the whole batch), then calls the batch's callbacks in order. The
// redo log is what makes a write durable; SQLite is brought up to date from it later: a live
// game's moves stay in the log (and in memory) until the record that ends the game packs them
// into one row, and the other records wait in memory, in order, until a second of them (or
// a few thousand) has gathered, a reader or a flush needs them, or a new generation of the log
// starts (apply_pending). Then they go to SQLite in ONE transaction, committed without an
// fsync of its own, a room's records that a later one of the same game supersedes left out.
// An event loop's thread (EndOfPassCommits) commits at the end of each pass of its loop what
// its handlers queued, and whatever was queued behind it (commit_pending). The writer thread
// commits the rest — flushes, prunes, writes from other threads — waiting up to
// `batch_window` after the oldest write, or until `max_batch` writes are queued, and brings
// SQLite up to date when an event loop's commit finds it due. One lock (commit_mutex_) lets
// one of them commit at a time, so batches and their callbacks keep the queue's order.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "server/store/redo_log.h"
#include "server/store/redo_records.h"
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
  // The redo log starts its next generation (in its other file, with the live games' moves
  // copied forward, once SQLite has made everything else durable) when the current one holds
  // this many bytes, or twice what was copied forward last time if that is more (README.md).
  std::uint64_t redo_rotate_bytes = std::uint64_t{64} << 20;
  // How far SQLite's file may fall behind the redo log before the records waiting for it are
  // written: this long after the first of them, or this many records (README.md, "The redo
  // log"). Readers, flush() and a new generation bring it up to date whenever they need to.
  // The count bounds the memory they hold in a burst: 10,000 players connecting in five seconds
  // left about 400 bytes per connection behind with 4,096 (records of a few hundred bytes in a
  // dozen allocations, freed between the connections' own), and 512 costs a durable move
  // nothing (docs/BENCHMARKS.md, "Memory per idle connection").
  std::chrono::milliseconds database_lag{1000};
  std::size_t most_records_waiting = 512;
  // Where run-time write failures are reported (default: stderr).
  std::function<void(std::string_view)> log_error;
  // Where the rest is said: what recovery replayed from the redo log (default: stderr).
  std::function<void(std::string_view)> log_info;
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
  struct Write {
    std::variant<FlushMarker, PlayerRecord, RoomRecord, MoveRecord, PruneRoomsBefore,
                 RatedGameRecord, PrunePlayersBefore>
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
  // Makes `batch` durable as one frame of the redo log, its records left waiting for SQLite
  // (or written in the batch's own transaction when a write needs it: sql_now); ok[i] says
  // whether write i is durable. False when the batch was not stored.
  bool commit_batch(std::vector<Write>& batch, std::vector<char>& ok);
  // Takes one write into the batch: a move of a live game into live_, a record into
  // waiting_sql_ (or, once the batch has an SQLite transaction of its own, into SQLite);
  // on success appends its encoding to payload_. False (reported) when the write was refused.
  // The record is moved into waiting_sql_ when it waits there: the batch does not read it again.
  bool write_one(Write& write);
  // A record as SQLite gets it: what a batch leaves for apply_pending, in the batch's order.
  struct ArchivedGame {  // a game's moves, packed into one row of packed_moves
    std::string room_id;
    int game_number = 0;
    std::string packed;
  };
  using SqlWork = std::variant<PlayerRecord, RoomRecord, RatedGameRecord, ArchivedGame>;
  // Leaves a record of the batch for apply_pending, moved into waiting_sql_ rather than copied
  // (the batch does not read it again), or writes it at once when the batch has its
  // transaction.
  template <typename Record>
  void to_sql(Record& record);
  void write_archive(const ArchivedGame& game);
  // Writes what waits in waiting_sql_ to SQLite in the batch's transaction, after which the
  // rest of the batch's records go there directly: a write that SQLite itself must check (a
  // move of a game that is not live) sees every record before it.
  void sql_now();
  // Brings SQLite up to date: what waits in waiting_sql_, in one transaction that names the
  // last batch committed. Outside a batch (commit_mutex_ held). False (reported) when SQLite
  // failed: the records wait for the next try, and the redo log still has them.
  bool apply_pending();
  // Writes each of `work` into the open transaction, but a room's record that a later one of
  // the same game supersedes (with no archive or rating of the room between). A record SQLite
  // refuses is reported and left out. False when SQLite rolled the transaction back.
  bool write_sql(const std::vector<SqlWork>& work);
  void write_sql(const SqlWork& work);
  // Whether the records waiting are due, after a batch.
  bool apply_due(std::chrono::steady_clock::time_point now) const;
  // Work that takes a while (SQLite's statements for a second of records, copying the live
  // games forward and SQLite's fsync) is not done on an event loop's thread: there it sets
  // `due` (guarded by mutex_) and wakes the writer, and returns true. False elsewhere: the
  // caller does the work itself.
  bool leave_to_writer(bool& due);
  void begin_sql();
  // Rolls back the transaction begin_sql() opened, if it is still open (a failure SQLite has
  // not rolled back itself), and forgets the seats it wrote.
  void roll_back_sql();
  void write_player(const PlayerRecord& player);
  void write_room(const RoomRecord& room);
  // Only the record's game row (a later record of the room writes its room row and seats).
  void write_game_row(const RoomRecord& room);
  // The record's row of `games` (none before the room's first game), within write_room's
  // savepoint or on its own.
  void upsert_game_row(const RoomRecord& room);
  // Takes a room record into the batch: refuses what SQLite's constraints would, hands it
  // (and the archive of the game it ends, ArchivedGame) to to_sql, and keeps live_ (the game
  // it ends let go, the one it starts kept in memory).
  void note_room(RoomRecord& room);
  // Deletes idle players (prune_idle_players) in the batch's transaction, and from
  // known_players_.
  void prune_players(UnixMillis before_ms);
  void write_move(const MoveRecord& move);
  void write_rated_game(const RatedGameRecord& game);
  // A reader's start. lock_for_reading() takes the commit lock (not on the thread that holds
  // it, in an on_durable callback), before reader_mutex_; pin_current() then brings SQLite up
  // to date, pins the reader's snapshot of the file and copies the live games' moves that
  // `live` asks for (all rooms', one room's, or none) with no batch able to come between, and
  // lets the commit lock go.
  std::unique_lock<std::mutex> lock_for_reading();
  enum class LiveCopy { kNone, kAll, kRoom };
  std::map<std::pair<std::string, int>, std::string> pin_current(
      sqlite::Db& db, LiveCopy live, const std::string& room_id,
      std::unique_lock<std::mutex>& commit);
  struct LiveGame;
  // Keeps a move of a live game in memory: its redo log encoding and its packed entry.
  static void add_live_move(LiveGame& game, const MoveRecord& move, std::string_view move_text);
  // Each live game's packed moves as a reader's snapshot needs them (live_mutex_ held).
  std::map<std::pair<std::string, int>, std::string> copy_live(
      const std::optional<std::string>& room_id) const;
  // Takes back live_'s changes of a batch that was not stored, newest first.
  void undo_live();
  // At open: live_ from the file (the live rooms, and move_log's rows of a file written by
  // schema 6), then the redo log's frames of the file's generation: the moves of the frames
  // the file has, every write of the frames it lost (a power loss takes SQLite's last
  // commits). Then a new generation.
  void recover();
  // Writes the live games' moves as the first frame of the next generation, in the log's other
  // file, then commits the generation to SQLite with its own fsync (everything earlier in the
  // file is durable then) and appends there from then on. False (reported) when it failed; the
  // current generation goes on.
  bool start_generation();
  // Whether the current generation has grown past redo_rotate_bytes (or twice what its start
  // carried forward).
  bool generation_full() const;
  void report(std::string_view message) const;
  void note(std::string_view message) const;

  SqliteStoreOptions options_;
  std::filesystem::path file_;
  int lock_fd_ = -1;
  // Held by whichever thread commits a batch, the writer or an event loop's (commit_pending):
  // it guards writer_db_, statements_ and the committing state below, and keeps batches and
  // their callbacks in queue order. Taken before mutex_, never while holding it.
  std::mutex commit_mutex_;
  std::unique_ptr<sqlite::Db> writer_db_;  // used only under commit_mutex_ after start
  // An event loop's batch and its results (commit_pending), kept from pass to pass so that
  // their storage is reused: taken only under commit_mutex_.
  std::vector<Write> pass_batch_;
  std::vector<char> pass_ok_;
  std::unique_ptr<Statements> statements_;
  std::unique_ptr<sqlite::Db> reader_db_;
  std::mutex reader_mutex_;

  mutable std::mutex mutex_;  // guards the queue and the counters below
  std::condition_variable wake_;
  // A vector, not a deque: a Write is large enough that a deque would allocate a block for
  // every one or two, and a batch that takes the whole queue swaps storage with it.
  std::vector<Write> queue_;
  std::size_t flushes_queued_ = 0;  // a flush waiting skips the batch window
  std::size_t writer_work_ = 0;     // queued writes that are the writer's (for_writer)
  // A pass found the commit lock held and left its writes to the holder: the writer, once it
  // lets go, takes what is queued even if none of it is its own.
  bool pass_skipped_ = false;
  // An event loop's commit found the redo log's generation full: the writer starts the next.
  bool generation_due_ = false;
  // Records wait for SQLite: the writer applies them at apply_at_ at the latest, or at once
  // when an event loop's commit found them due (apply_due_).
  std::optional<std::chrono::steady_clock::time_point> apply_at_;
  bool apply_due_ = false;
  bool accepting_ = true;
  bool stopping_ = false;
  StoreStats stats_;

  // Under commit_mutex_: games with a failed move; their later moves are refused.
  std::set<std::pair<std::string, int>> broken_games_;
  // Under commit_mutex_: the seats this store last wrote for each room, so that a
  // room record whose seats did not change leaves their rows alone. Forgotten, and the seats
  // written again, when a batch fails, when ended rooms are pruned, and past
  // kMostSeatsWritten rooms (a room not written for long costs no memory for ever). Kept in
  // their redo log encoding (encode_occupants), a fifth of a live room's memory as records.
  static constexpr std::size_t kMostSeatsWritten = 1 << 16;
  std::unordered_map<std::string, std::string> seats_written_;

  // The live game of each room — its current game while the room is waiting or playing — and
  // its moves, which are in the redo log and nowhere in the file until the room record that
  // ends the game packs them into packed_moves (archive()). Changed under commit_mutex_ and
  // live_mutex_ (readers take live_mutex_ alone), by the constructor before that.
  struct LiveGame {
    explicit LiveGame(int number) : game_number(number) {}
    int game_number;
    std::int64_t max_seq = std::numeric_limits<std::int64_t>::min();
    std::vector<std::int64_t> seqs;  // append order
    // packed_moves' row under way: "[" then the entries, comma-separated, each
    // [seq,seat,move,at_ms,hash]; the row's "]" is added when the game ends.
    std::string packed = "[";
    std::string frames;  // the moves' redo log encodings, copied forward to a new generation

    // The finished row for an archive, moved out rather than copied (a few kilobytes).
    std::string close_packed() {
      packed += ']';
      return std::move(packed);
    }
    // Takes back a row close_packed() gave, when its archive is not stored.
    void reopen_packed(std::string&& row) {
      packed = std::move(row);
      packed.pop_back();
    }
  };
  std::unordered_map<std::string, std::unique_ptr<LiveGame>> live_;
  // Held while a batch changes live_ and commits, and by readers while they copy live moves and
  // take their SQLite snapshot, so the two agree.
  mutable std::mutex live_mutex_;
  // live_'s changes in the batch being committed, to take back if it is not stored.
  struct LiveUndo {
    enum class Kind { kAppended, kStarted, kEnded } kind;
    std::string room_id;
    LiveGame* game = nullptr;  // kAppended: its sizes before
    std::size_t seqs = 0, packed = 0, frames = 0;
    std::int64_t max_seq = 0;
    std::unique_ptr<LiveGame> ended;  // kEnded
    // kEnded: the index in waiting_sql_ of the archive that took the game's packed row.
    std::optional<std::size_t> archived_at;
  };
  std::vector<LiveUndo> undo_;

  // Under commit_mutex_ (and the constructor): the redo log's two files (generation g is in
  // redo_[g % 2]), its generation and last batch number, the batch's encoded writes, and
  // whether the batch has an SQLite transaction open.
  std::array<std::unique_ptr<RedoLog>, 2> redo_;
  std::uint64_t generation_ = 0;
  std::uint64_t batch_number_ = 0;
  std::uint64_t carried_bytes_ = 0;  // the last new generation's first frame
  std::string payload_;
  std::string move_text_;  // the text of the move being written (write_move)
  bool sql_open_ = false;
  // Under commit_mutex_: the records committed to the redo log but not yet to SQLite, in
  // order, and when the first of them was committed. A batch that fails takes its own back.
  std::vector<SqlWork> waiting_sql_;
  static constexpr std::size_t kWaitingKept = 1024;  // waiting_sql_'s storage kept once empty
  std::chrono::steady_clock::time_point waiting_since_;
  // Under commit_mutex_: the players stored (in SQLite or waiting for it), so that a room
  // record naming another is refused before it is acknowledged, as SQLite's foreign keys
  // would; and the current batch's changes to it, taken back if the batch fails.
  std::unordered_set<std::string> known_players_;
  std::vector<std::string> players_added_;
  std::vector<std::string> players_removed_;
  std::thread writer_;
};

}  // namespace parlor::server
