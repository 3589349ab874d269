#include "server/store/sqlite_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <iostream>
#include <map>
#include <system_error>
#include <type_traits>

#include "games/core/json_text.h"
#include "server/store/sqlite_db.h"
#include "server/store/sqlite_schema.h"
#include "server/thread_name.h"

namespace parlor::server {

using sqlite::Error;
using sqlite::Statement;

namespace {

// Empties `items`, and gives its storage back when it outgrew `keep` elements. The vectors of
// writes and waiting records swell in a burst (thousands of players connecting in a second:
// a megabyte of waiting records in a heap profile of 2,000 connecting) and would keep that
// storage for as long as the server runs.
template <typename T>
void clear_and_trim(std::vector<T>& items, std::size_t keep) {
  items.clear();
  if (items.capacity() > keep) std::vector<T>().swap(items);
}

std::string_view status_name(StoredRoomStatus status) {
  switch (status) {
    case StoredRoomStatus::kWaiting:
      return "waiting";
    case StoredRoomStatus::kPlaying:
      return "playing";
    case StoredRoomStatus::kFinished:
      return "finished";
    case StoredRoomStatus::kAbandoned:
      return "abandoned";
  }
  return "waiting";
}

std::optional<StoredRoomStatus> parse_status(std::string_view name) {
  for (auto status : {StoredRoomStatus::kWaiting, StoredRoomStatus::kPlaying,
                      StoredRoomStatus::kFinished, StoredRoomStatus::kAbandoned}) {
    if (status_name(status) == name) return status;
  }
  return std::nullopt;
}

// Seeds are uint64; SQLite integers are int64. The bits are stored unchanged.
std::int64_t seed_bits(std::uint64_t seed) { return static_cast<std::int64_t>(seed); }
std::uint64_t seed_value(std::int64_t bits) { return static_cast<std::uint64_t>(bits); }

std::string errno_text(int error) { return std::generic_category().message(error); }

// Creates the directory and takes an exclusive lock on `<file>.lock`: two servers writing
// one file would interleave their logs. The lock dies with the process (kill -9 included).
int lock_data_dir(const std::filesystem::path& dir, const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw StoreError("cannot create data directory " + dir.string() + ": " + ec.message());
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw StoreError("data directory " + dir.string() + " is not a directory");
  }
  const std::filesystem::path lock_path = file.string() + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw StoreError("cannot create " + lock_path.string() + ": " + errno_text(errno) +
                     " (check that the data directory is writable)");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      throw StoreError("data file " + file.string() + " is in use by another parlor-server (" +
                       lock_path.string() + " is locked)");
    }
    throw StoreError("cannot lock " + lock_path.string() + ": " + errno_text(error));
  }
  return fd;
}

void check_writable(const std::filesystem::path& dir) {
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw StoreError("data directory " + dir.string() + " is not writable: " + errno_text(errno));
  }
}

// A room's current game is live — its moves are kept in the redo log and in memory — until a
// record of the room says it is over. kLiveRoom is the same test in SQL, on rooms.
bool is_live(const RoomRecord& room) {
  return room.game_number > 0 && !room.finished_ms &&
         (room.status == StoredRoomStatus::kWaiting || room.status == StoredRoomStatus::kPlaying);
}
constexpr std::string_view kLiveRoom =
    "status IN ('waiting', 'playing') AND finished_ms IS NULL AND game_number > 0";

// The redo log's files beside the database: generation g is in the one ending in g % 2.
std::filesystem::path redo_file(const std::filesystem::path& file, int which) {
  return file.string() + ".redo-" + std::to_string(which);
}

// One entry of a packed_moves row: [seq, seat, move, at_ms, state_hash or null].
// `out` is a row under way: "[" and the entries so far. The numbers around the move's text
// are formatted on the stack and appended in two pieces: this runs for every durable move.
void append_packed(std::string& out, const MoveRecord& move, std::string_view move_text) {
  // Room for the punctuation after each number: to_chars stops at the end it is given.
  char head[64];
  char* const head_end = head + sizeof head - 8;
  char* at = head;
  if (out.size() > 1) *at++ = ',';
  *at++ = '[';
  at = std::to_chars(at, head_end, move.seq).ptr;
  *at++ = ',';
  at = std::to_chars(at, head_end, move.seat).ptr;
  *at++ = ',';
  out.append(head, at);
  out += move_text;
  char tail[64];
  char* const tail_end = tail + sizeof tail - 8;
  at = tail;
  *at++ = ',';
  at = std::to_chars(at, tail_end, move.at_ms).ptr;
  *at++ = ',';
  if (move.state_hash) {
    at = std::to_chars(at, tail_end, static_cast<std::int64_t>(*move.state_hash)).ptr;
  } else {
    at = std::copy_n("null", 4, at);
  }
  *at++ = ']';
  out.append(tail, at);
}

nlohmann::json parse_json(const std::string& text, const std::string& what) {
  auto value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) throw StoreError(what + " is not valid JSON");
  return value;
}

}  // namespace

// The writer's prepared statements, compiled once at open.
struct SqliteStore::Statements {
  explicit Statements(sqlite::Db& db)
      : begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        rollback(db, "ROLLBACK"),
        savepoint(db, "SAVEPOINT part"),
        release(db, "RELEASE part"),
        rollback_to(db, "ROLLBACK TO part"),
        upsert_player(db,
                      "INSERT INTO players (id, name, token_hash, created_ms, last_seen_ms)"
                      " VALUES (?1, ?2, ?3, ?4, ?5)"
                      " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                      " token_hash = excluded.token_hash,"
                      " last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)"),
        // An upsert, never INSERT OR REPLACE: a replace deletes the row and cascades to the
        // room's games and moves.
        upsert_room(db,
                    "INSERT INTO rooms (id, kind, seats, game_options, room_options, creator_id,"
                    " status, game_number, created_ms, finished_ms)"
                    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
                    " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, seats = excluded.seats,"
                    " game_options = excluded.game_options, room_options = excluded.room_options,"
                    " creator_id = excluded.creator_id, status = excluded.status,"
                    " game_number = excluded.game_number, finished_ms = excluded.finished_ms"),
        delete_seats(db, "DELETE FROM room_seats WHERE room_id = ?1"),
        insert_seat(db,
                    "INSERT INTO room_seats (room_id, seat, player_id, name, bot)"
                    " VALUES (?1, ?2, ?3, ?4, ?5)"),
        upsert_game(db,
                    "INSERT INTO games (room_id, game_number, seed, start_seq, started_ms,"
                    " finished_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
                    " ON CONFLICT (room_id, game_number) DO UPDATE SET seed = excluded.seed,"
                    " start_seq = excluded.start_seq, started_ms = excluded.started_ms,"
                    " finished_ms = excluded.finished_ms"),
        insert_move(db,
                    "INSERT INTO moves (room_id, game_number, seq, seat, move, at_ms, state_hash)"
                    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        insert_packed(db,
                      "INSERT INTO packed_moves (room_id, game_number, moves) VALUES (?1, ?2, ?3)"),
        // Whether an archived game's packed row already has seq ?3.
        packed_has_seq(db,
                       "SELECT 1 FROM packed_moves AS p, json_each(p.moves) AS e"
                       " WHERE p.room_id = ?1 AND p.game_number = ?2"
                       " AND json_extract(e.value, '$[0]') = ?3 LIMIT 1"),
        set_redo(db, "UPDATE redo_state SET generation = ?1, applied = ?2"),
        // An abandoned room has no finished_ms (its game never ended, and a finished_ms would
        // open its replays to every seat): its age counts from its last game's start.
        insert_rated_game(db,
                          "INSERT INTO rated_games (room_id, game_number, kind, finished_ms,"
                          " system, sides, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                          " ON CONFLICT (room_id, game_number) DO NOTHING"),
        select_rating(db,
                      "SELECT rating, deviation, volatility FROM ratings"
                      " WHERE player_id = ?1 AND kind = ?2"),
        upsert_rating(db,
                      "INSERT INTO ratings (player_id, kind, name, rating, deviation, volatility,"
                      " games, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7)"
                      " ON CONFLICT (player_id, kind) DO UPDATE SET name = excluded.name,"
                      " rating = excluded.rating, deviation = excluded.deviation,"
                      " volatility = excluded.volatility, games = ratings.games + 1,"
                      " updated_ms = excluded.updated_ms"),
        insert_rated_seat(db,
                          "INSERT INTO rated_seats (room_id, game_number, seat, player_id, name,"
                          " kind, finished_ms, side, rank, abandoned, rating_before,"
                          " deviation_before, volatility_before, rating_after, deviation_after,"
                          " volatility_after) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
                          " ?11, ?12, ?13, ?14, ?15, ?16)"),
        prune_rooms(db,
                    "DELETE FROM rooms WHERE status IN ('finished', 'abandoned')"
                    " AND COALESCE(finished_ms,"
                    " (SELECT max(started_ms) FROM games WHERE games.room_id = rooms.id),"
                    " created_ms) < ?1"),
        prune_players(db,
                      "DELETE FROM players WHERE last_seen_ms < ?1"
                      " AND NOT EXISTS (SELECT 1 FROM ratings WHERE ratings.player_id = players.id)"
                      " AND NOT EXISTS (SELECT 1 FROM room_seats"
                      " WHERE room_seats.player_id = players.id)"
                      " AND NOT EXISTS (SELECT 1 FROM rooms WHERE rooms.creator_id = players.id)"
                      " RETURNING id") {}

  Statement begin, commit, rollback, savepoint, release, rollback_to;
  Statement upsert_player, upsert_room, delete_seats, insert_seat, upsert_game, insert_move;
  Statement insert_packed, packed_has_seq;
  Statement set_redo;  // the redo log's generation and the last of its batches the file has
  Statement insert_rated_game, select_rating, upsert_rating, insert_rated_seat;
  Statement prune_rooms;  // cascades to seats, games and moves
  Statement prune_players;
};

SqliteStore::SqliteStore(SqliteStoreOptions options)
    : options_(std::move(options)), file_(options_.data_dir / options_.file_name) {
  if (options_.max_batch == 0) options_.max_batch = 1;
  lock_fd_ = lock_data_dir(options_.data_dir, file_);
  try {
    check_writable(options_.data_dir);
    // A batch is durable once its redo log frame is: SQLite's commits need no fsync of their
    // own (NORMAL still fsyncs at checkpoints, keeping the file consistent), except the one
    // that starts a generation (start_generation).
    sqlite::OpenOptions open;
    open.synchronous = "NORMAL";
    open.quick_check = options_.quick_check_at_open;
    writer_db_ = sqlite::open_writer(file_, open);
    statements_ = std::make_unique<Statements>(*writer_db_);
    recover();
    reader_db_ = sqlite::open_reader(file_);
  } catch (const Error& error) {
    for (auto& log : redo_) log.reset();
    statements_.reset();
    writer_db_.reset();
    ::close(lock_fd_);
    throw StoreError("cannot prepare data file " + file_.string() + ": " + error.what());
  } catch (...) {
    for (auto& log : redo_) log.reset();
    statements_.reset();
    writer_db_.reset();
    ::close(lock_fd_);
    throw;
  }
  writer_ = std::thread([this] {
    name_this_thread("parlor-store");
    run_writer();
  });
}

SqliteStore::~SqliteStore() { close(); }

void SqliteStore::close() {
  {
    std::lock_guard lock(mutex_);
    if (!accepting_ && !writer_.joinable()) return;
    accepting_ = false;
    stopping_ = true;
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
  {
    // An event loop's thread may still be committing a batch it took before the writer
    // drained the queue: the connection closes after it, with SQLite up to date.
    std::lock_guard commit(commit_mutex_);
    try {
      apply_pending();  // reports its own failures
    } catch (...) {
      // Out of memory while closing: what waited is still in the redo log, and the next start
      // writes it to SQLite (recover()).
    }
    // Statements before their connections; the last connection to close checkpoints the WAL.
    for (auto& log : redo_) log.reset();
    statements_.reset();
    writer_db_.reset();
  }
  // Apart from the commit lock: a reader that waits for it holds neither.
  {
    std::lock_guard lock(reader_mutex_);
    reader_db_.reset();
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

void SqliteStore::report(std::string_view message) const {
  if (options_.log_error) return options_.log_error(message);
  std::cerr << "parlor store: " << message << std::endl;
}

void SqliteStore::note(std::string_view message) const {
  if (options_.log_info) return options_.log_info(message);
  std::cerr << "parlor store: " << message << std::endl;
}

// ---- the queue -----------------------------------------------------------------------------

void SqliteStore::save_player(PlayerRecord player, DurableCallback on_durable) {
  enqueue({std::move(player), std::move(on_durable), std::chrono::steady_clock::now()});
}

void SqliteStore::save_room(RoomRecord room, DurableCallback on_durable) {
  enqueue({std::move(room), std::move(on_durable), std::chrono::steady_clock::now()});
}

void SqliteStore::append_move(MoveRecord move, DurableCallback on_durable) {
  enqueue({std::move(move), std::move(on_durable), std::chrono::steady_clock::now()});
}

void SqliteStore::record_rated_game(RatedGameRecord game, DurableCallback on_durable) {
  enqueue({std::move(game), std::move(on_durable), std::chrono::steady_clock::now()});
}

void SqliteStore::prune_ended_rooms(UnixMillis before_ms) {
  enqueue({PruneRoomsBefore{before_ms}, nullptr, std::chrono::steady_clock::now()});
}

void SqliteStore::prune_idle_players(UnixMillis before_ms) {
  enqueue({PrunePlayersBefore{before_ms}, nullptr, std::chrono::steady_clock::now()});
}

namespace {
// True while this thread runs on_durable callbacks, holding the commit lock: a flush() there
// would wait for a commit that cannot start.
thread_local bool t_in_callbacks = false;
}  // namespace

void SqliteStore::flush() {
  if (t_in_callbacks) {
    report("flush() called from an on_durable callback; it would never return");
    return;
  }
  std::promise<void> done;
  auto future = done.get_future();
  enqueue({FlushMarker{}, [&done](WriteResult) { done.set_value(); },
           std::chrono::steady_clock::now()});
  future.wait();
}

void SqliteStore::enqueue(Write write) {
  const bool is_flush = std::holds_alternative<FlushMarker>(write.record);
  std::unique_lock lock(mutex_);
  if (!accepting_) {
    lock.unlock();
    if (!is_flush) report("a write arrived after the store was closed; it is not stored");
    if (write.on_durable) write.on_durable(is_flush ? WriteResult::kDurable : WriteResult::kFailed);
    return;
  }
  const bool record = is_record(write);
  // A record queued by an event loop's thread is committed at the end of its pass
  // (commit_pending), and so is any record queued behind it: it is not the writer's. Flushes
  // and prunes always are.
  write.for_writer = !record || !EndOfPassCommits::on_this_thread();
  const bool for_writer = write.for_writer;
  queue_.push_back(std::move(write));
  const std::size_t depth = queue_.size();
  if (is_flush) ++flushes_queued_;
  if (for_writer) ++writer_work_;
  const std::size_t writer_work = writer_work_;
  lock.unlock();
  // The writer needs waking only to start a batch or to cut its window short.
  if (for_writer && (writer_work == 1 || depth >= options_.max_batch || !record)) {
    wake_.notify_one();
  }
}

StoreStats SqliteStore::stats() const {
  std::lock_guard lock(mutex_);
  StoreStats out = stats_;
  out.queued = queue_.size();
  return out;
}

// ---- committing: the writer thread, or an event loop's at the end of its pass -----------

void SqliteStore::run_writer() {
  std::vector<Write> batch;
  std::vector<char> ok;
  std::unique_lock lock(mutex_);
  for (;;) {
    // Records wait for SQLite: they are written by apply_at_ even if nothing else comes. An
    // event loop's commit sets it and wakes this thread, which then waits for it.
    if (apply_at_ && std::chrono::steady_clock::now() >= *apply_at_) apply_due_ = true;
    if (!(writer_work_ > 0 || pass_skipped_ || generation_due_ || apply_due_ || stopping_)) {
      if (apply_at_) {
        wake_.wait_until(lock, *apply_at_);
      } else {
        wake_.wait(lock);
      }
      continue;
    }
    if (apply_due_ && !stopping_) {
      apply_due_ = false;
      lock.unlock();
      {
        std::lock_guard commit(commit_mutex_);
        apply_pending();
      }
      lock.lock();
      continue;
    }
    if (generation_due_) {
      generation_due_ = false;
      lock.unlock();
      {
        std::lock_guard commit(commit_mutex_);
        if (generation_full()) start_generation();
      }
      lock.lock();
      continue;
    }
    if (queue_.empty()) {
      if (stopping_) return;  // everything is committed
      pass_skipped_ = false;  // what that pass left was committed meanwhile
      continue;
    }
    // Group commit: give other writers until the oldest write's window closes to join.
    const auto window_end = queue_.front().queued_at + options_.batch_window;
    wake_.wait_until(lock, window_end, [this] {
      return queue_.size() >= options_.max_batch || flushes_queued_ > 0 || stopping_;
    });
    lock.unlock();
    {
      std::lock_guard commit(commit_mutex_);
      lock.lock();
      // An event loop's thread may have committed what woke the writer meanwhile; what is
      // left then is the event loops' own, unless a pass found this thread committing and left
      // its writes to it (pass_skipped_). Closing, the writer takes everything.
      if (writer_work_ > 0 || pass_skipped_ || stopping_) take_batch(batch, false);
      pass_skipped_ = pass_skipped_ && !queue_.empty();
      lock.unlock();
      if (!batch.empty()) commit_and_report(batch, ok);
    }
    lock.lock();
  }
}

void SqliteStore::commit_pending() {
  std::vector<Write>& batch = pass_batch_;
  std::vector<char>& ok = pass_ok_;
  for (;;) {
    std::unique_lock commit(commit_mutex_, std::try_to_lock);
    if (!commit.owns_lock()) {
      // Another thread commits. It may have taken its batch before this pass's writes were
      // queued, so it is told to look at the queue again once it lets go: an event loop's
      // thread does anyway (below), the writer when pass_skipped_ is set. Set before trying
      // again, so that a holder that has let go meanwhile is seen here instead.
      {
        std::lock_guard lock(mutex_);
        pass_skipped_ = true;
      }
      commit = std::unique_lock(commit_mutex_, std::try_to_lock);
      if (!commit.owns_lock()) return;
    }
    {
      std::lock_guard lock(mutex_);
      // Once closing, the writer drains the queue.
      if (stopping_) return;
      take_batch(batch, true);
    }
    if (batch.empty()) return;
    commit_and_report(batch, ok);
    commit.unlock();
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return;
  }
}

bool SqliteStore::is_record(const Write& write) {
  return !std::holds_alternative<FlushMarker>(write.record) &&
         !std::holds_alternative<PruneRoomsBefore>(write.record) &&
         !std::holds_alternative<PrunePlayersBefore>(write.record);
}

void SqliteStore::take_batch(std::vector<Write>& batch, bool records_only) {
  batch.clear();
  std::size_t take = 0;
  while (take < queue_.size() && take < options_.max_batch) {
    if (records_only && !is_record(queue_[take])) break;
    ++take;
  }
  if (take == queue_.size()) {
    // The usual case, the whole queue: the two vectors trade storage, nothing is moved.
    batch.swap(queue_);
  } else {
    const auto end = queue_.begin() + static_cast<std::ptrdiff_t>(take);
    batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(end));
    queue_.erase(queue_.begin(), end);
  }
  for (const auto& write : batch) {
    if (std::holds_alternative<FlushMarker>(write.record)) --flushes_queued_;
    if (write.for_writer) --writer_work_;
  }
}

void SqliteStore::commit_and_report(std::vector<Write>& batch, std::vector<char>& ok) {
  const auto commit_started = std::chrono::steady_clock::now();
  const bool committed = commit_batch(batch, ok);
  const std::chrono::duration<double> commit_took =
      std::chrono::steady_clock::now() - commit_started;
  std::uint64_t records = 0;
  std::uint64_t failed = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (std::holds_alternative<FlushMarker>(batch[i].record)) continue;
    ++(ok[i] ? records : failed);
  }
  {
    std::lock_guard stats_lock(mutex_);
    if (records > 0) ++stats_.batches;
    count_batch(stats_, committed, records, commit_took.count());
    stats_.records += records;
    stats_.failed_records += failed;
    stats_.largest_batch = std::max<std::uint64_t>(stats_.largest_batch, records);
  }
  // Callbacks after the commit, in queue order, outside mutex_ but under the commit lock, so
  // that the next batch's callbacks come after these whichever thread commits it.
  t_in_callbacks = true;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].on_durable) continue;
    try {
      batch[i].on_durable(ok[i] ? WriteResult::kDurable : WriteResult::kFailed);
    } catch (const std::exception& e) {
      report(std::string("an on_durable callback threw: ") + e.what());
    }
  }
  t_in_callbacks = false;
  // A batch takes at most max_batch writes, but trades storage with the queue, which a burst
  // can grow beyond that.
  clear_and_trim(batch, options_.max_batch);
}

namespace {
// What a write is, for the report of its refusal (built only then: not per move stored).
template <typename Record>
std::string describe(const Record& record) {
  if constexpr (std::is_same_v<Record, PlayerRecord>) {
    return "player " + record.id;
  } else if constexpr (std::is_same_v<Record, RoomRecord>) {
    return "room " + record.id;
  } else if constexpr (std::is_same_v<Record, MoveRecord>) {
    return "room " + record.room_id + " game " + std::to_string(record.game_number) + " move seq " +
           std::to_string(record.seq);
  } else if constexpr (std::is_same_v<Record, PruneRoomsBefore>) {
    return "pruning rooms that ended before " + std::to_string(record.before_ms);
  } else if constexpr (std::is_same_v<Record, PrunePlayersBefore>) {
    return "pruning players last seen before " + std::to_string(record.before_ms);
  } else if constexpr (std::is_same_v<Record, RatedGameRecord>) {
    return "the ratings of room " + record.room_id + " game " + std::to_string(record.game_number);
  } else {
    return "a flush";
  }
}
}  // namespace

bool SqliteStore::commit_batch(std::vector<Write>& batch, std::vector<char>& ok) {
  ok.assign(batch.size(), 0);
  std::lock_guard live_lock(live_mutex_);
  undo_.clear();
  payload_.clear();
  sql_open_ = false;
  // The records of earlier batches that wait for SQLite: this batch's come after them.
  const std::size_t waiting_before = waiting_sql_.size();
  players_added_.clear();
  players_removed_.clear();
  bool flushes = false;
  const auto fail_all = [&](const std::string& why) {
    report("a batch of " + std::to_string(batch.size()) + " writes was not stored: " + why);
    roll_back_sql();
    undo_live();
    waiting_sql_.erase(waiting_sql_.begin() + static_cast<std::ptrdiff_t>(waiting_before),
                       waiting_sql_.end());
    for (const std::string& id : players_added_) known_players_.erase(id);
    for (std::string& id : players_removed_) known_players_.insert(std::move(id));
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto& record = batch[i].record;
      if (const auto* move = std::get_if<MoveRecord>(&record)) {
        broken_games_.emplace(move->room_id, move->game_number);
      }
      ok[i] = std::holds_alternative<FlushMarker>(record) ? 1 : 0;
    }
    return false;
  };
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (std::holds_alternative<FlushMarker>(batch[i].record)) {
      ok[i] = 1;
      flushes = true;
      continue;
    }
    ok[i] = write_one(batch[i]) ? 1 : 0;
    if (sql_open_ && !writer_db_->in_transaction()) {
      // SQLite rolled the whole transaction back (disk full, I/O error): nothing is stored.
      sql_open_ = false;
      return fail_all("SQLite rolled the transaction back");
    }
  }
  if (payload_.empty()) {  // only flushes, or every write refused: nothing to make durable
    roll_back_sql();
    undo_.clear();
    // A flush leaves SQLite's file with everything committed before it.
    if (flushes) apply_pending();
    return true;
  }
  // The frame is durable before SQLite commits anything of it, and SQLite names the last
  // batch it has in the same transaction: recovery replays exactly the frames the file lacks.
  const std::uint64_t number = batch_number_ + 1;
  RedoLog& log = *redo_[generation_ % 2];
  try {
    if (sql_open_) {
      statements_->set_redo.bind(1, static_cast<std::int64_t>(generation_))
          .bind(2, static_cast<std::int64_t>(number))
          .run();
    }
    log.append(generation_, number, payload_,
               options_.synchronous == SqliteStoreOptions::Synchronous::kFull);
  } catch (const std::exception& e) {
    statements_->set_redo.reset();
    return fail_all(std::string("the redo log was not written: ") + e.what());
  }
  if (sql_open_) {
    try {
      statements_->commit.run();
      sql_open_ = false;
      clear_and_trim(waiting_sql_, kWaitingKept);  // written in this transaction (sql_now)
    } catch (const Error& error) {
      // The frame must not be replayed: the batch is reported failed.
      try {
        log.retract_last();
      } catch (const std::exception& e) {
        report(std::string("the redo log's last frame could not be taken back (the next batch "
                           "overwrites it): ") +
               e.what());
      }
      return fail_all(std::string("COMMIT failed: ") + error.what());
    }
  }
  batch_number_ = number;
  undo_.clear();
  const auto now = std::chrono::steady_clock::now();
  if (waiting_before == 0 && !waiting_sql_.empty()) {
    waiting_since_ = now;
    {
      std::lock_guard lock(mutex_);
      apply_at_ = now + options_.database_lag;
    }
    wake_.notify_one();
  }
  // A flush leaves SQLite's file with everything committed before it.
  if (flushes || (apply_due(now) && !leave_to_writer(apply_due_))) apply_pending();
  if (generation_full() && !leave_to_writer(generation_due_)) start_generation();
  return true;
}

// ---- SQLite, brought up to date from the records the batches left ------------------------

bool SqliteStore::leave_to_writer(bool& due) {
  if (!EndOfPassCommits::on_this_thread()) return false;
  {
    std::lock_guard lock(mutex_);
    due = true;
  }
  wake_.notify_one();
  return true;
}

bool SqliteStore::apply_due(std::chrono::steady_clock::time_point now) const {
  return !waiting_sql_.empty() && (waiting_sql_.size() >= options_.most_records_waiting ||
                                   now - waiting_since_ >= options_.database_lag);
}

template <typename Record>
void SqliteStore::to_sql(Record& record) {
  if (sql_open_) {
    write_sql(SqlWork(std::in_place_type<Record>, record));
  } else {
    waiting_sql_.emplace_back(std::in_place_type<Record>, std::move(record));
  }
}

void SqliteStore::sql_now() {
  if (sql_open_) return;
  begin_sql();
  if (!write_sql(waiting_sql_)) throw std::runtime_error("SQLite rolled the transaction back");
}

bool SqliteStore::apply_pending() {
  if (!writer_db_) return true;
  // Tried again a while later if it fails; nothing is due once it succeeds.
  const auto retry_at = [this](std::optional<std::chrono::steady_clock::time_point> when) {
    std::lock_guard lock(mutex_);
    apply_at_ = when;
  };
  if (waiting_sql_.empty()) {
    retry_at(std::nullopt);
    return true;
  }
  try {
    begin_sql();
    if (!write_sql(waiting_sql_)) throw Error("SQLite rolled the transaction back", SQLITE_ABORT);
    statements_->set_redo.bind(1, static_cast<std::int64_t>(generation_))
        .bind(2, static_cast<std::int64_t>(batch_number_))
        .run();
    statements_->commit.run();
    sql_open_ = false;
  } catch (const Error& error) {
    statements_->set_redo.reset();
    roll_back_sql();
    report("the database was not brought up to date from the redo log (" +
           std::string(error.what()) + "); " + std::to_string(waiting_sql_.size()) +
           " records wait for the next try");
    retry_at(std::chrono::steady_clock::now() + options_.database_lag);
    return false;
  }
  clear_and_trim(waiting_sql_, kWaitingKept);
  retry_at(std::nullopt);
  return true;
}

namespace {
// The room a record of SQL work belongs to, if any.
template <typename Work>
const std::string* room_of(const Work& work) {
  if constexpr (requires { work.room_id; }) {
    return &work.room_id;
  } else {
    return nullptr;
  }
}
}  // namespace

bool SqliteStore::write_sql(const std::vector<SqlWork>& work) {
  // From the last record back: a room's record is left out when the next record of the room
  // is of the same game (its game row, its room row and its seats are all rewritten by that
  // one), unless an archive or a rating of the room comes between, which needs the game row
  // as it was. (Prunes never wait: they go to SQLite in their batch, after what waited.)
  // A record that is kept but has a later one of the room (of the next game: a game's end,
  // then the next one's start) writes only its game row: the room row and the seats are the
  // later record's to write. Only where the room's row is in the file already (seats_written_
  // knows the room): a game row needs its room's.
  std::vector<char> superseded(work.size(), 0);
  std::vector<char> game_row_only(work.size(), 0);
  std::unordered_map<std::string_view, int> next_game;  // room -> game of its next record
  std::unordered_set<std::string_view> written_later;   // rooms with a later record
  for (std::size_t i = work.size(); i-- > 0;) {
    if (const auto* room = std::get_if<RoomRecord>(&work[i])) {
      const auto next = next_game.find(room->id);
      superseded[i] = next != next_game.end() && next->second == room->game_number ? 1 : 0;
      next_game.insert_or_assign(room->id, room->game_number);
      game_row_only[i] = written_later.insert(room->id).second ? 0 : 1;
    } else if (const std::string* room_id =
                   std::visit([](const auto& value) { return room_of(value); }, work[i])) {
      next_game.erase(*room_id);
    }
  }
  for (std::size_t i = 0; i < work.size(); ++i) {
    if (superseded[i]) continue;
    try {
      const auto* room = std::get_if<RoomRecord>(&work[i]);
      if (room && game_row_only[i] && seats_written_.contains(room->id)) {
        write_game_row(*room);
      } else {
        write_sql(work[i]);
      }
    } catch (const std::exception& e) {
      const std::string what = std::visit(
          [](const auto& value) -> std::string {
            if constexpr (std::is_same_v<std::decay_t<decltype(value)>, ArchivedGame>) {
              return "the moves of room " + value.room_id + " game " +
                     std::to_string(value.game_number);
            } else {
              return describe(value);
            }
          },
          work[i]);
      report(what + " was not written to the database (it stays in the redo log): " + e.what());
    }
    if (!writer_db_->in_transaction()) return false;
  }
  return true;
}

void SqliteStore::write_sql(const SqlWork& work) {
  if (const auto* player = std::get_if<PlayerRecord>(&work)) {
    write_player(*player);
  } else if (const auto* room = std::get_if<RoomRecord>(&work)) {
    write_room(*room);
  } else if (const auto* rated = std::get_if<RatedGameRecord>(&work)) {
    write_rated_game(*rated);
  } else if (const auto* game = std::get_if<ArchivedGame>(&work)) {
    write_archive(*game);
  }
}

void SqliteStore::write_archive(const ArchivedGame& game) {
  // A finished game's moves in one row, in append order: from then on readers take the game
  // from packed_moves and `moves` only.
  auto& insert = statements_->insert_packed;
  insert.bind(1, game.room_id).bind(2, std::int64_t{game.game_number});
  insert.bind(3, game.packed).run();
}

void SqliteStore::prune_players(UnixMillis before_ms) {
  auto& deleted = statements_->prune_players;
  deleted.bind(1, before_ms);
  try {
    while (deleted.step()) {
      std::string id = deleted.column_text(0);
      if (known_players_.erase(id) > 0) players_removed_.push_back(std::move(id));
    }
  } catch (...) {
    deleted.reset();
    throw;
  }
  deleted.reset();
}

bool SqliteStore::generation_full() const {
  return redo_[generation_ % 2]->tail() > std::max(options_.redo_rotate_bytes, 2 * carried_bytes_);
}

void SqliteStore::begin_sql() {
  if (sql_open_) return;
  statements_->begin.run();
  sql_open_ = true;
}

void SqliteStore::roll_back_sql() {
  if (!sql_open_) return;
  sql_open_ = false;
  seats_written_.clear();  // the transaction's may not be in the file: rewritten next time
  try {
    if (writer_db_->in_transaction()) statements_->rollback.run();
  } catch (const Error& rollback_error) {
    report(std::string("ROLLBACK failed: ") + rollback_error.what());
  }
}

bool SqliteStore::write_one(Write& write) {
  // Encoded before it is applied, so a record that cannot be encoded changes nothing; taken
  // back from the frame if it is refused.
  const std::size_t start = payload_.size();
  try {
    if (auto* player = std::get_if<PlayerRecord>(&write.record)) {
      encode_write(*player, payload_);
      std::optional<std::string> added;  // the id, kept before the record is moved
      if (!known_players_.contains(player->id)) added = player->id;
      to_sql(*player);
      if (added) {
        known_players_.insert(*added);
        players_added_.push_back(std::move(*added));
      }
    } else if (auto* room = std::get_if<RoomRecord>(&write.record)) {
      encode_write(*room, payload_);
      note_room(*room);
    } else if (const auto* move = std::get_if<MoveRecord>(&write.record)) {
      write_move(*move);  // encodes it itself
    } else if (const auto* prune = std::get_if<PruneRoomsBefore>(&write.record)) {
      // Prunes (hourly) go to SQLite at once: which players are left decides whether a later
      // room record is refused.
      encode_write(*prune, payload_);
      sql_now();
      seats_written_.clear();  // the rooms it deletes take their seats with them
      statements_->prune_rooms.bind(1, prune->before_ms).run();
    } else if (const auto* idle = std::get_if<PrunePlayersBefore>(&write.record)) {
      encode_write(*idle, payload_);
      sql_now();
      prune_players(idle->before_ms);
    } else if (auto* rated = std::get_if<RatedGameRecord>(&write.record)) {
      rated_sides(*rated);  // refuses a game that cannot be rated, before it is acknowledged
      encode_write(*rated, payload_);
      to_sql(*rated);
    }
    return true;
  } catch (const std::exception& e) {
    payload_.resize(start);
    const std::string what =
        std::visit([](const auto& record) { return describe(record); }, write.record);
    report(what + " was not stored: " + e.what());
    if (const auto* move = std::get_if<MoveRecord>(&write.record)) {
      broken_games_.emplace(move->room_id, move->game_number);
    }
    return false;
  }
}

void SqliteStore::write_player(const PlayerRecord& player) {
  auto& s = statements_->upsert_player;
  s.bind(1, player.id).bind(2, player.name);
  s.bind_blob(3, player.token_hash.data(), static_cast<int>(player.token_hash.size()));
  s.bind(4, player.created_ms).bind(5, player.last_seen_ms);
  s.run();
}

void SqliteStore::note_room(RoomRecord& room) {
  // What SQLite's constraints would refuse, refused here, before the record is acknowledged:
  // it reaches SQLite only later (apply_pending).
  if (room.seats <= 0 || room.game_number < 0) {
    throw std::invalid_argument("a room of " + std::to_string(room.seats) + " seats at game " +
                                std::to_string(room.game_number));
  }
  if (room.occupants.size() > static_cast<std::size_t>(room.seats)) {
    throw std::invalid_argument(std::to_string(room.occupants.size()) + " occupants for " +
                                std::to_string(room.seats) + " seats");
  }
  const auto check_player = [this](const std::optional<std::string>& id) {
    if (id && !known_players_.contains(*id)) {
      throw std::invalid_argument("player " + *id + " is not stored");
    }
  };
  check_player(room.creator_id);
  for (const auto& occupant : room.occupants) {
    if (occupant) check_player(occupant->player_id);
  }
  const auto live = live_.find(room.id);
  const bool ends_live_game =
      live != live_.end() && (!is_live(room) || live->second->game_number != room.game_number);
  // The archive of the game it ends takes the game's packed row out of the live game rather
  // than a copy of it (a game's moves are a few kilobytes, and a game ends every pass or two);
  // give_back() returns it when the record is refused, undo_live() when the batch is not stored.
  std::optional<ArchivedGame> archive;
  if (ends_live_game && !live->second->seqs.empty()) {
    archive = ArchivedGame{room.id, live->second->game_number, live->second->close_packed()};
  }
  const auto give_back = [&live, &archive] {
    live->second->reopen_packed(std::move(archive->packed));
  };
  std::optional<std::size_t> archived_at;
  // What live_ needs of the record, which is moved to waiting_sql_ below rather than copied:
  // the batch's write is not read again.
  const bool starts_live_game = is_live(room) && (ends_live_game || live == live_.end());
  const int game_number = room.game_number;
  std::string id = room.id;
  // The record, then the archive of the game it ends, which needs the record's game row.
  if (sql_open_ && archive) {
    // Written at once: the two together or neither.
    auto& s = *statements_;
    s.savepoint.run();
    try {
      write_room(room);
      write_archive(*archive);
      s.release.run();
    } catch (...) {
      give_back();
      if (writer_db_->in_transaction()) {
        s.rollback_to.run();
        s.release.run();
      }
      throw;
    }
    give_back();  // SQLite has its own copy now
  } else if (archive) {
    try {
      waiting_sql_.reserve(waiting_sql_.size() + 2);  // so that neither push below can fail
    } catch (...) {
      give_back();
      throw;
    }
    waiting_sql_.emplace_back(std::in_place_type<RoomRecord>, std::move(room));
    waiting_sql_.emplace_back(std::in_place_type<ArchivedGame>, std::move(*archive));
    archived_at = waiting_sql_.size() - 1;
  } else {
    to_sql(room);
  }
  // Only once the record is taken: a refused write leaves live_ as it was.
  if (ends_live_game) {
    undo_.push_back(
        {LiveUndo::Kind::kEnded, id, nullptr, 0, 0, 0, 0, std::move(live->second), archived_at});
    live_.erase(live);
  }
  if (starts_live_game) {
    live_.emplace(id, std::make_unique<LiveGame>(game_number));
    undo_.push_back(
        {LiveUndo::Kind::kStarted, std::move(id), nullptr, 0, 0, 0, 0, nullptr, std::nullopt});
  }
}

void SqliteStore::upsert_game_row(const RoomRecord& room) {
  if (room.game_number <= 0) return;
  auto& upsert = statements_->upsert_game;
  upsert.bind(1, room.id).bind(2, std::int64_t{room.game_number});
  upsert.bind(3, seed_bits(room.seed)).bind(4, room.start_seq);
  upsert.bind(5, room.game_started_ms).bind(6, room.finished_ms);
  upsert.run();
}

void SqliteStore::write_game_row(const RoomRecord& room) {
  try {
    upsert_game_row(room);
  } catch (...) {
    statements_->upsert_game.reset();
    throw;
  }
}

void SqliteStore::write_room(const RoomRecord& room) {
  // The room, its seats and its game row together or not at all.
  auto& s = *statements_;
  // The seats' rows only when they differ from what this store last wrote for the room: most
  // records (a game's start and its end) keep the seats, whose rows and index entries are
  // most of what a room record would change.
  std::string seats = encode_occupants(room.occupants);
  const auto written = seats_written_.find(room.id);
  const bool same_seats = written != seats_written_.end() && written->second == seats;
  s.savepoint.run();
  try {
    s.upsert_room.bind(1, room.id).bind(2, room.kind).bind(3, std::int64_t{room.seats});
    s.upsert_room.bind(4, room.game_options.dump()).bind(5, room.room_options.dump());
    s.upsert_room.bind(6, room.creator_id).bind(7, status_name(room.status));
    s.upsert_room.bind(8, std::int64_t{room.game_number}).bind(9, room.created_ms);
    s.upsert_room.bind(10, room.finished_ms);
    s.upsert_room.run();
    if (!same_seats) {
      s.delete_seats.bind(1, room.id).run();
      for (std::size_t seat = 0; seat < room.occupants.size(); ++seat) {
        const auto& occupant = room.occupants[seat];
        if (!occupant) continue;
        s.insert_seat.bind(1, room.id).bind(2, static_cast<std::int64_t>(seat));
        s.insert_seat.bind(3, occupant->player_id).bind(4, occupant->name).bind(5, occupant->bot);
        s.insert_seat.run();
      }
    }
    upsert_game_row(room);
    s.release.run();
  } catch (...) {
    for (auto* statement : {&s.upsert_room, &s.delete_seats, &s.insert_seat, &s.upsert_game}) {
      statement->reset();
    }
    if (writer_db_->in_transaction()) {
      s.rollback_to.run();
      s.release.run();
    }
    throw;
  }
  // Only once SQLite has it. A transaction that is rolled back later forgets them all
  // (seats_written_.clear() where that happens).
  if (!same_seats) {
    if (seats_written_.size() >= kMostSeatsWritten && written == seats_written_.end()) {
      seats_written_.clear();
    }
    seats_written_.insert_or_assign(room.id, std::move(seats));
  }
}

// Rates the game unless it was rated already (the rated_games key), reading and writing the
// players' ratings in the batch's transaction: all of it or nothing.
void SqliteStore::write_rated_game(const RatedGameRecord& game) {
  const auto sides = rated_sides(game);
  auto& s = *statements_;
  s.savepoint.run();
  try {
    std::vector<ratings::Rating> before;
    for (const RatedSeat& seat : game.seats) {
      s.select_rating.bind(1, seat.player_id).bind(2, game.kind);
      ratings::Rating rating;
      if (s.select_rating.step()) {
        rating = {s.select_rating.column_double(0), s.select_rating.column_double(1),
                  s.select_rating.column_double(2)};
      }
      s.select_rating.reset();
      before.push_back(rating);
    }
    const ratings::GameRatings rated = ratings::rate_game(sides, before);
    s.insert_rated_game.bind(1, game.room_id).bind(2, std::int64_t{game.game_number});
    s.insert_rated_game.bind(3, game.kind).bind(4, game.finished_ms);
    s.insert_rated_game.bind(5, ratings::system_name(rated.system));
    s.insert_rated_game.bind(6, static_cast<std::int64_t>(sides.size()));
    s.insert_rated_game.bind(7, game.result.dump());
    s.insert_rated_game.run();
    if (writer_db_->changes() == 0) {  // rated already: a replay of the game's end
      s.release.run();
      return;
    }
    const auto ratings_after = merged_by_identity(game, rated.after);
    for (std::size_t seat = 0; seat < game.seats.size(); ++seat) {
      const RatedSeat& who = game.seats[seat];
      const ratings::Rating& after = rated.after[seat];
      auto& row = s.insert_rated_seat;
      row.bind(1, game.room_id).bind(2, std::int64_t{game.game_number});
      row.bind(3, static_cast<std::int64_t>(seat)).bind(4, who.player_id).bind(5, who.name);
      row.bind(6, game.kind).bind(7, game.finished_ms).bind(8, std::int64_t{who.side});
      row.bind(9, std::int64_t{game.side_ranks[static_cast<std::size_t>(who.side)]});
      row.bind(10, std::int64_t{who.abandoned ? 1 : 0});
      row.bind_double(11, before[seat].rating).bind_double(12, before[seat].deviation);
      row.bind_double(13, before[seat].volatility).bind_double(14, after.rating);
      row.bind_double(15, after.deviation).bind_double(16, after.volatility);
      row.run();
    }
    for (const auto& [player_id, entry] : ratings_after) {
      auto& row = s.upsert_rating;
      row.bind(1, player_id).bind(2, game.kind).bind(3, entry.first);
      row.bind_double(4, entry.second.rating).bind_double(5, entry.second.deviation);
      row.bind_double(6, entry.second.volatility).bind(7, game.finished_ms);
      row.run();
    }
    s.release.run();
  } catch (...) {
    for (auto* statement :
         {&s.select_rating, &s.insert_rated_game, &s.insert_rated_seat, &s.upsert_rating}) {
      statement->reset();
    }
    if (writer_db_->in_transaction()) {
      s.rollback_to.run();
      s.release.run();
    }
    throw;
  }
}

namespace {
bool has_seq(const std::vector<std::int64_t>& seqs, std::int64_t max_seq, std::int64_t seq) {
  return seq <= max_seq && std::find(seqs.begin(), seqs.end(), seq) != seqs.end();
}
}  // namespace

void SqliteStore::add_live_move(LiveGame& game, const MoveRecord& move,
                                std::string_view move_text) {
  encode_write(move, move_text, game.frames);
  append_packed(game.packed, move, move_text);
  game.seqs.push_back(move.seq);
  game.max_seq = std::max(game.max_seq, move.seq);
}

void SqliteStore::write_move(const MoveRecord& move) {
  // (Looked up only when there are any: the key is a copy of the room's id.)
  if (!broken_games_.empty() && broken_games_.contains({move.room_id, move.game_number})) {
    throw std::runtime_error(
        "an earlier move of this game was not stored; refusing later ones "
        "so the log has no gap");
  }
  // The text the room has (the player's frame carried it), or one written into a buffer kept
  // from move to move: a move's text costs no allocation.
  std::string_view text = move.move_text;
  if (text.empty()) {
    move_text_.clear();
    json_text::value(move_text_, move.move);
    text = move_text_;
  }
  const auto live = live_.find(move.room_id);
  if (live != live_.end() && live->second->game_number == move.game_number) {
    // The room's live game: kept in memory and in the redo log only.
    LiveGame& game = *live->second;
    if (has_seq(game.seqs, game.max_seq, move.seq)) {
      throw std::runtime_error("the game already has a move with this seq");
    }
    undo_.push_back({LiveUndo::Kind::kAppended,
                     {},
                     &game,
                     game.seqs.size(),
                     game.packed.size(),
                     game.frames.size(),
                     game.max_seq,
                     nullptr,
                     std::nullopt});
    const std::size_t start = game.frames.size();
    add_live_move(game, move, text);
    payload_.append(game.frames, start);
    return;
  }
  // Not the room's live game (no such game, or one already over): straight into `moves`,
  // whose keys refuse what does not belong there, once SQLite has every record before it.
  sql_now();
  // `moves`' keys do not see the seqs of a game packed into packed_moves.
  auto& packed = statements_->packed_has_seq;
  packed.bind(1, move.room_id).bind(2, std::int64_t{move.game_number}).bind(3, move.seq);
  const bool repeated = packed.step();
  packed.reset();
  if (repeated) throw std::runtime_error("the game already has a move with this seq");
  encode_write(move, text, payload_);
  auto& s = statements_->insert_move;
  s.bind(1, move.room_id).bind(2, std::int64_t{move.game_number}).bind(3, move.seq);
  s.bind(4, std::int64_t{move.seat}).bind(5, text).bind(6, move.at_ms);
  s.bind(7, move.state_hash
                ? std::optional<std::int64_t>(static_cast<std::int64_t>(*move.state_hash))
                : std::nullopt);
  s.run();
}

void SqliteStore::undo_live() {
  for (; !undo_.empty(); undo_.pop_back()) {
    LiveUndo& change = undo_.back();
    switch (change.kind) {
      case LiveUndo::Kind::kAppended:
        change.game->seqs.resize(change.seqs);
        change.game->packed.resize(change.packed);
        change.game->frames.resize(change.frames);
        change.game->max_seq = change.max_seq;
        break;
      case LiveUndo::Kind::kStarted:
        live_.erase(change.room_id);
        break;
      case LiveUndo::Kind::kEnded:
        if (change.archived_at) {  // its packed row, taken back from the archive that waits
          auto& archived = std::get<ArchivedGame>(waiting_sql_.at(*change.archived_at));
          change.ended->reopen_packed(std::move(archived.packed));
        }
        live_[change.room_id] = std::move(change.ended);
        break;
    }
  }
}

void SqliteStore::recover() {
  auto& db = *writer_db_;
  live_.clear();
  known_players_.clear();
  {
    Statement players(db, "SELECT id FROM players");
    while (players.step()) known_players_.insert(players.column_text(0));
  }
  {
    Statement rooms(db, "SELECT id, game_number FROM rooms WHERE " + std::string(kLiveRoom));
    while (rooms.step()) {
      live_.emplace(rooms.column_text(0),
                    std::make_unique<LiveGame>(static_cast<int>(rooms.column_int(1))));
    }
  }
  // A live game's moves given a number the game already has are not kept twice.
  const auto keep = [this](const MoveRecord& move, std::string_view text) {
    const auto live = live_.find(move.room_id);
    if (live == live_.end() || live->second->game_number != move.game_number) return;
    LiveGame& game = *live->second;
    if (!has_seq(game.seqs, game.max_seq, move.seq)) add_live_move(game, move, text);
  };
  {
    // A file of schema 6 keeps its live games' moves in move_log: they go to the redo log's
    // first generation below, which empties the table.
    Statement legacy(db,
                     "SELECT room_id, game_number, seq, seat, move, at_ms, state_hash FROM move_log"
                     " ORDER BY id");
    while (legacy.step()) {
      MoveRecord move{legacy.column_text(0),
                      static_cast<int>(legacy.column_int(1)),
                      legacy.column_int(2),
                      static_cast<int>(legacy.column_int(3)),
                      nullptr,
                      legacy.column_int(5),
                      std::nullopt};
      if (auto hash = legacy.column_optional_int(6)) {
        move.state_hash = static_cast<std::uint64_t>(*hash);
      }
      keep(move, legacy.column_text(4));
    }
  }
  std::uint64_t applied = 0;
  {
    Statement state(db, "SELECT generation, applied FROM redo_state");
    if (!state.step()) throw StoreError("data file " + file_.string() + " has no redo_state row");
    generation_ = static_cast<std::uint64_t>(state.column_int(0));
    applied = static_cast<std::uint64_t>(state.column_int(1));
  }
  for (int which = 0; which < 2; ++which) {
    redo_[static_cast<std::size_t>(which)] = std::make_unique<RedoLog>(redo_file(file_, which));
  }
  RedoLog& log = *redo_[generation_ % 2];
  const auto frames = log.read(generation_);
  if (generation_ > 0 && (frames.empty() || frames.front().batch != 1)) {
    throw StoreError("redo log " + log.file().string() + " has lost the start of generation " +
                     std::to_string(generation_) + ", which data file " + file_.string() +
                     " needs: the moves of the games under way are there (restore the data "
                     "directory from a backup taken with parlor-backup)");
  }
  std::uint64_t replayed_batches = 0;
  std::uint64_t replayed_writes = 0;
  for (const RedoLog::Frame& frame : frames) {
    std::vector<StoredWrite> stored;
    try {
      stored = decode_writes(frame.payload);
    } catch (const StoreError& error) {
      throw StoreError("redo log " + log.file().string() + " batch " + std::to_string(frame.batch) +
                       " cannot be replayed: " + error.what());
    }
    if (frame.batch <= applied) {
      // The file has this batch: what it adds is a live game's moves.
      for (const StoredWrite& write : stored) {
        if (const auto* move = std::get_if<MoveRecord>(&write)) keep(*move, move->move.dump());
      }
      continue;
    }
    // The file lost this batch (a power loss took SQLite's last commits, or they were still
    // waiting for it): apply it again, as the store did, into the state the batch found.
    undo_.clear();
    payload_.clear();
    sql_open_ = false;
    const std::size_t waiting_before = waiting_sql_.size();
    for (StoredWrite& record : stored) {
      Write write = std::visit(
          [](auto& value) {
            return Write{std::move(value), nullptr, {}};
          },
          record);
      if (!write_one(write)) {
        report("redo log batch " + std::to_string(frame.batch) +
               ": an acknowledged write could not be replayed (above)");
      }
    }
    undo_.clear();
    if (sql_open_) {
      // A write that SQLite checks itself had everything before it written: the batch's
      // transaction holds the frame whole.
      statements_->set_redo.bind(1, static_cast<std::int64_t>(generation_))
          .bind(2, static_cast<std::int64_t>(frame.batch))
          .run();
      statements_->commit.run();
      sql_open_ = false;
      waiting_sql_.clear();
    } else if (waiting_sql_.size() == waiting_before) {
      continue;  // only moves of live games: never in the file
    }
    ++replayed_batches;
    replayed_writes += stored.size();
  }
  batch_number_ = frames.empty() ? 0 : frames.back().batch;
  payload_.clear();
  if (!apply_pending()) {
    throw StoreError("cannot write the redo log's batches to data file " + file_.string() +
                     " (above)");
  }
  if (!start_generation()) {
    throw StoreError("cannot start the redo log's generation " + std::to_string(generation_ + 1) +
                     " beside data file " + file_.string() + " (above)");
  }
  if (replayed_batches > 0) {
    note("recovered " + std::to_string(replayed_writes) + " acknowledged writes in " +
         std::to_string(replayed_batches) + " batches from redo log " + log.file().string() +
         " that " + file_.string() + " had lost");
  }
}

bool SqliteStore::start_generation() {
  // The old generation is let go: SQLite must have every record of it first.
  if (!apply_pending()) return false;
  const std::uint64_t next = generation_ + 1;
  RedoLog& log = *redo_[next % 2];
  std::string carried;
  for (const auto& [room_id, game] : live_) carried += game->frames;
  try {
    log.rewind();
    log.append(next, 1, carried);
  } catch (const std::exception& e) {
    report("the redo log's generation " + std::to_string(next) + " was not started: " + e.what());
    return false;
  }
  // The file's own fsync, once: every commit before it is durable then, and the generation it
  // names starts with the frame just written.
  auto& db = *writer_db_;
  try {
    db.exec("PRAGMA synchronous = FULL");
    statements_->begin.run();
    statements_->set_redo.bind(1, static_cast<std::int64_t>(next)).bind(2, std::int64_t{1}).run();
    db.exec("DELETE FROM move_log");
    statements_->commit.run();
    db.exec("PRAGMA synchronous = NORMAL");
  } catch (const Error& error) {
    statements_->set_redo.reset();
    try {
      if (db.in_transaction()) statements_->rollback.run();
      db.exec("PRAGMA synchronous = NORMAL");
    } catch (const Error& rollback_error) {
      report(std::string("ROLLBACK failed: ") + rollback_error.what());
    }
    report("the redo log's generation " + std::to_string(next) +
           " was not started: " + error.what());
    return false;
  }
  generation_ = next;
  batch_number_ = 1;
  carried_bytes_ = carried.size();
  return true;
}

// ---- loading -------------------------------------------------------------------------------

namespace {

constexpr std::string_view kSqliteRoomColumns =
    "SELECT r.id, r.kind, r.seats, r.game_options, r.room_options, r.creator_id, r.status,"
    " r.game_number, r.created_ms, r.finished_ms, g.seed, g.start_seq, g.started_ms"
    " FROM rooms r LEFT JOIN games g ON g.room_id = r.id AND g.game_number = r.game_number";

RoomRecord read_room(const Statement& row, sqlite::Db& db) {
  RoomRecord room;
  room.id = row.column_text(0);
  room.kind = row.column_text(1);
  room.seats = static_cast<int>(row.column_int(2));
  room.game_options = parse_json(row.column_text(3), "room " + room.id + "'s game options");
  room.room_options = parse_json(row.column_text(4), "room " + room.id + "'s room options");
  room.creator_id = row.column_optional_text(5);
  const auto status = parse_status(row.column_text(6));
  if (!status) throw StoreError("room " + room.id + " has an unknown status");
  room.status = *status;
  room.game_number = static_cast<int>(row.column_int(7));
  room.created_ms = row.column_int(8);
  if (!row.is_null(9)) room.finished_ms = row.column_int(9);
  room.seed = seed_value(row.column_int(10));
  room.start_seq = row.column_int(11);
  room.game_started_ms = row.column_int(12);

  room.occupants.resize(static_cast<std::size_t>(std::max(room.seats, 0)));
  Statement seats(db, "SELECT seat, player_id, name, bot FROM room_seats WHERE room_id = ?1");
  seats.bind(1, room.id);
  while (seats.step()) {
    const auto seat = seats.column_int(0);
    if (seat < 0 || seat >= room.seats) throw StoreError("room " + room.id + " has a bad seat");
    room.occupants[static_cast<std::size_t>(seat)] = SeatRecord{
        seats.column_optional_text(1), seats.column_text(2), seats.column_optional_text(3)};
  }
  return room;
}

// A move from a row whose first columns are seq, seat, move, at_ms, state_hash.
MoveRecord read_move(const Statement& row, const std::string& room_id, int game_number) {
  MoveRecord move{
      room_id, game_number,       row.column_int(0), static_cast<int>(row.column_int(1)),
      nullptr, row.column_int(3), std::nullopt};
  move.move =
      parse_json(row.column_text(2), "room " + room_id + " move seq " + std::to_string(move.seq));
  if (auto hash = row.column_optional_int(4)) move.state_hash = static_cast<std::uint64_t>(*hash);
  return move;
}

void sort_by_seq(std::vector<MoveRecord>& moves) {
  std::stable_sort(moves.begin(), moves.end(),
                   [](const MoveRecord& a, const MoveRecord& b) { return a.seq < b.seq; });
}

// One entry of a packed_moves row: [seq, seat, move, at_ms, state_hash or null].
MoveRecord read_packed_move(const nlohmann::json& entry, const std::string& room_id,
                            int game_number) {
  const auto bad = [&] {
    return StoreError("room " + room_id + " game " + std::to_string(game_number) +
                      " has a packed move that is not [seq, seat, move, at_ms, state_hash]");
  };
  if (!entry.is_array() || entry.size() != 5 || !entry[0].is_number_integer() ||
      !entry[1].is_number_integer() || !entry[3].is_number_integer() ||
      !(entry[4].is_null() || entry[4].is_number_integer())) {
    throw bad();
  }
  MoveRecord move{room_id,
                  game_number,
                  entry[0].get<std::int64_t>(),
                  entry[1].get<int>(),
                  entry[2],
                  entry[3].get<std::int64_t>(),
                  std::nullopt};
  if (!entry[4].is_null())
    move.state_hash = static_cast<std::uint64_t>(entry[4].get<std::int64_t>());
  return move;
}

// One game's archived moves (packed into packed_moves, or in `moves` when archived before
// schema version 6), by seq.
std::vector<MoveRecord> read_archived(sqlite::Db& db, const std::string& room_id, int game_number) {
  Statement moves(db,
                  "SELECT seq, seat, move, at_ms, state_hash FROM moves"
                  " WHERE room_id = ?1 AND game_number = ?2"
                  " ORDER BY seq");
  moves.bind(1, room_id).bind(2, std::int64_t{game_number});
  std::vector<MoveRecord> out;
  while (moves.step()) out.push_back(read_move(moves, room_id, game_number));
  Statement packed(db,
                   "SELECT moves FROM packed_moves WHERE room_id = ?1 AND game_number = ?2"
                   " ORDER BY id");
  packed.bind(1, room_id).bind(2, std::int64_t{game_number});
  bool any_packed = false;
  while (packed.step()) {
    any_packed = true;
    const auto entries =
        parse_json(packed.column_text(0),
                   "room " + room_id + " game " + std::to_string(game_number) + "'s packed moves");
    if (!entries.is_array()) throw StoreError("room " + room_id + "'s packed moves are not a list");
    for (const auto& entry : entries) out.push_back(read_packed_move(entry, room_id, game_number));
  }
  if (any_packed) sort_by_seq(out);
  return out;
}

// Adds a live game's moves, kept in memory as packed entries, to `moves`, then sorts them by
// seq.
void add_live(std::vector<MoveRecord>& moves, const std::string& packed, const std::string& room_id,
              int game_number) {
  const auto entries =
      parse_json(packed + "]",
                 "room " + room_id + " game " + std::to_string(game_number) + "'s moves under way");
  for (const auto& entry : entries) moves.push_back(read_packed_move(entry, room_id, game_number));
  sort_by_seq(moves);
}

// One read transaction: everything loaded comes from the same committed snapshot.
template <typename Body>
auto in_snapshot(sqlite::Db& db, const std::filesystem::path& file, Body body) {
  try {
    db.exec("BEGIN");
    try {
      auto result = body();
      db.exec("COMMIT");
      return result;
    } catch (...) {
      db.exec("ROLLBACK");
      throw;
    }
  } catch (const StoreError& error) {
    throw StoreError("data file " + file.string() + ": " + error.what());
  } catch (const Error& error) {
    throw StoreError("cannot read data file " + file.string() + ": " + error.what());
  }
}

}  // namespace

// The moves of the games under way are in memory, not in the file: a reader copies them and
// takes its snapshot of the file under the commit lock and live_mutex_, once the records that
// waited for SQLite are written (pin_current), so that the two agree.
std::map<std::pair<std::string, int>, std::string> SqliteStore::copy_live(
    const std::optional<std::string>& room_id) const {
  std::map<std::pair<std::string, int>, std::string> out;
  for (const auto& [id, game] : live_) {
    if (!room_id || id == *room_id) out[{id, game->game_number}] = game->packed;
  }
  return out;
}

namespace {
// Starts the read transaction's snapshot (SQLite takes it at the first read).
void pin_snapshot(sqlite::Db& db) {
  Statement pin(db, "SELECT generation FROM redo_state");
  pin.step();
}
}  // namespace

std::unique_lock<std::mutex> SqliteStore::lock_for_reading() {
  // A reader inside an on_durable callback is on the thread that holds the commit lock.
  std::unique_lock commit(commit_mutex_, std::defer_lock);
  if (!t_in_callbacks) commit.lock();
  return commit;
}

std::map<std::pair<std::string, int>, std::string> SqliteStore::pin_current(
    sqlite::Db& db, LiveCopy live, const std::string& room_id,
    std::unique_lock<std::mutex>& commit) {
  apply_pending();
  std::map<std::pair<std::string, int>, std::string> out;
  {
    std::lock_guard live_lock(live_mutex_);
    pin_snapshot(db);
    if (live != LiveCopy::kNone) {
      out = copy_live(live == LiveCopy::kAll ? std::nullopt : std::optional<std::string>(room_id));
    }
  }
  if (commit.owns_lock()) commit.unlock();  // the snapshot is pinned: batches may go on
  return out;
}

LoadedState SqliteStore::load() {
  auto commit = lock_for_reading();  // before reader_mutex_, as close() takes them
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&] {
    const auto live = pin_current(db, LiveCopy::kAll, {}, commit);
    LoadedState state;
    Statement players(
        db, "SELECT id, name, token_hash, created_ms, last_seen_ms FROM players ORDER BY id");
    while (players.step()) {
      PlayerRecord player{players.column_text(0),
                          players.column_text(1),
                          {},
                          players.column_int(3),
                          players.column_int(4)};
      const std::string hash = players.column_blob(2);
      if (hash.size() != player.token_hash.size()) {
        throw StoreError("player " + player.id + " has a token hash of " +
                         std::to_string(hash.size()) + " bytes");
      }
      std::copy(hash.begin(), hash.end(), player.token_hash.begin());
      state.players.push_back(std::move(player));
    }
    Statement rooms(db,
                    std::string(kSqliteRoomColumns) +
                        " WHERE r.status IN ('waiting', 'playing') ORDER BY r.created_ms, r.id");
    while (rooms.step()) {
      LoadedRoom loaded{read_room(rooms, db), {}};
      if (loaded.room.game_number > 0) {
        loaded.moves = read_archived(db, loaded.room.id, loaded.room.game_number);
      }
      state.rooms.push_back(std::move(loaded));
    }
    for (auto& loaded : state.rooms) {
      if (!is_live(loaded.room)) continue;
      const auto game = live.find({loaded.room.id, loaded.room.game_number});
      if (game != live.end()) {
        add_live(loaded.moves, game->second, loaded.room.id, loaded.room.game_number);
      }
    }
    return state;
  });
}

std::optional<RoomHistory> SqliteStore::load_room(const std::string& room_id) {
  auto commit = lock_for_reading();  // before reader_mutex_, as close() takes them
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&]() -> std::optional<RoomHistory> {
    const auto live = pin_current(db, LiveCopy::kRoom, room_id, commit);
    Statement row(db, std::string(kSqliteRoomColumns) + " WHERE r.id = ?1");
    row.bind(1, room_id);
    if (!row.step()) return std::nullopt;
    RoomHistory history{read_room(row, db), {}};
    Statement games(db,
                    "SELECT game_number, seed, start_seq, started_ms, finished_ms FROM games"
                    " WHERE room_id = ?1 ORDER BY game_number");
    games.bind(1, room_id);
    while (games.step()) {
      GameRecord game;
      game.game_number = static_cast<int>(games.column_int(0));
      game.seed = seed_value(games.column_int(1));
      game.start_seq = games.column_int(2);
      game.started_ms = games.column_int(3);
      if (!games.is_null(4)) game.finished_ms = games.column_int(4);
      game.moves = read_archived(db, room_id, game.game_number);
      history.games.push_back(std::move(game));
    }
    // Only the current game can be live.
    if (is_live(history.room)) {
      const auto moves = live.find({room_id, history.room.game_number});
      for (auto& game : history.games) {
        if (game.game_number == history.room.game_number && moves != live.end()) {
          add_live(game.moves, moves->second, room_id, game.game_number);
        }
      }
    }
    return history;
  });
}

std::vector<RatingRow> SqliteStore::load_leaderboard(const std::string& kind, int limit) {
  auto commit = lock_for_reading();  // before reader_mutex_, as close() takes them
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&] {
    pin_current(db, LiveCopy::kNone, {}, commit);
    Statement rows(db,
                   "SELECT player_id, name, rating, deviation, volatility, games, updated_ms"
                   " FROM ratings WHERE kind = ?1"
                   " ORDER BY rating - 2 * deviation DESC, player_id LIMIT ?2");
    rows.bind(1, kind).bind(2, std::int64_t{limit});
    std::vector<RatingRow> out;
    while (rows.step()) {
      out.push_back({rows.column_text(0),
                     rows.column_text(1),
                     kind,
                     {rows.column_double(2), rows.column_double(3), rows.column_double(4)},
                     static_cast<int>(rows.column_int(5)),
                     rows.column_int(6)});
    }
    return out;
  });
}

std::optional<PlayerRatings> SqliteStore::load_player_ratings(const std::string& player_id,
                                                              int games) {
  auto commit = lock_for_reading();  // before reader_mutex_, as close() takes them
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&]() -> std::optional<PlayerRatings> {
    pin_current(db, LiveCopy::kNone, {}, commit);
    PlayerRatings out;
    out.id = player_id;
    Statement rows(db,
                   "SELECT kind, name, rating, deviation, volatility, games, updated_ms"
                   " FROM ratings WHERE player_id = ?1 ORDER BY kind");
    rows.bind(1, player_id);
    UnixMillis latest = -1;
    while (rows.step()) {
      RatingRow row{player_id,
                    rows.column_text(1),
                    rows.column_text(0),
                    {rows.column_double(2), rows.column_double(3), rows.column_double(4)},
                    static_cast<int>(rows.column_int(5)),
                    rows.column_int(6)};
      if (row.updated_ms > latest) {
        latest = row.updated_ms;
        out.name = row.name;
      }
      out.ratings.push_back(std::move(row));
    }
    if (out.ratings.empty()) return std::nullopt;
    Statement played(db,
                     "SELECT s.room_id, s.game_number, s.kind, s.finished_ms, g.system, s.seat,"
                     " s.rank, g.sides, s.abandoned, s.rating_before, s.deviation_before,"
                     " s.volatility_before, s.rating_after, s.deviation_after, s.volatility_after"
                     " FROM rated_seats s JOIN rated_games g ON g.room_id = s.room_id"
                     " AND g.game_number = s.game_number WHERE s.player_id = ?1"
                     " ORDER BY s.finished_ms DESC, s.room_id DESC, s.game_number DESC, s.seat"
                     " LIMIT ?2");
    played.bind(1, player_id).bind(2, std::int64_t{games});
    while (played.step()) {
      out.games.push_back(
          {played.column_text(0),
           static_cast<int>(played.column_int(1)),
           played.column_text(2),
           played.column_int(3),
           played.column_text(4),
           static_cast<int>(played.column_int(5)),
           static_cast<int>(played.column_int(6)),
           static_cast<int>(played.column_int(7)),
           played.column_int(8) != 0,
           {played.column_double(9), played.column_double(10), played.column_double(11)},
           {played.column_double(12), played.column_double(13), played.column_double(14)}});
    }
    return out;
  });
}

}  // namespace parlor::server
