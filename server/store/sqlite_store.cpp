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

#include "server/store/sqlite_db.h"
#include "server/store/sqlite_schema.h"
#include "server/thread_name.h"

namespace parlor::server {

using sqlite::Error;
using sqlite::Statement;

namespace {

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

// A room's current game is live — its moves go to move_log — until a record of the room says
// it is over. kLiveRoom is the same test in SQL, on rooms.
bool is_live(const RoomRecord& room) {
  return room.game_number > 0 && !room.finished_ms &&
         (room.status == StoredRoomStatus::kWaiting || room.status == StoredRoomStatus::kPlaying);
}
constexpr std::string_view kLiveRoom =
    "status IN ('waiting', 'playing') AND finished_ms IS NULL AND game_number > 0";

// A live game is copied to the log's end once its first row is this many times the live
// rows behind the end (or log_slack, when more): each row is copied at most once per that
// many appends, so moving idle games costs a fraction of a row per append.
constexpr std::size_t kSlackPerLiveRow = 4;
// Without an archive the log is still trimmed (and idle games moved) every so many commits.
constexpr unsigned kTrimEveryCommits = 64;

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
        append_log(db,
                   "INSERT INTO move_log (room_id, game_number, seq, seat, move, at_ms,"
                   " state_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        // ?1: a JSON array of the game's log rowids, packed in its order into one row; ?2 and
        // ?3 the game, ?4 how many rows it must find (none is written otherwise).
        archive_moves(db,
                      "INSERT INTO packed_moves (room_id, game_number, moves)"
                      " SELECT ?2, ?3, json_group_array(json_array(l.seq, l.seat, json(l.move),"
                      " l.at_ms, l.state_hash)) FROM json_each(?1) AS j"
                      " CROSS JOIN move_log AS l ON l.id = j.value"
                      " WHERE l.room_id = ?2 AND l.game_number = ?3 HAVING count(*) = ?4"),
        // Whether an archived game's packed row already has seq ?3.
        packed_has_seq(db,
                       "SELECT 1 FROM packed_moves AS p, json_each(p.moves) AS e"
                       " WHERE p.room_id = ?1 AND p.game_number = ?2"
                       " AND json_extract(e.value, '$[0]') = ?3 LIMIT 1"),
        relocate_moves(db,
                       "INSERT INTO move_log (room_id, game_number, seq, seat, move, at_ms,"
                       " state_hash) SELECT l.room_id, l.game_number, l.seq, l.seat, l.move,"
                       " l.at_ms, l.state_hash FROM json_each(?1) AS j"
                       " CROSS JOIN move_log AS l ON l.id = j.value"),
        trim_below(db, "DELETE FROM move_log WHERE id < ?1"),
        trim_all(db, "DELETE FROM move_log"),
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
                      " AND NOT EXISTS (SELECT 1 FROM rooms WHERE rooms.creator_id = players.id)") {
  }

  Statement begin, commit, rollback, savepoint, release, rollback_to;
  Statement upsert_player, upsert_room, delete_seats, insert_seat, upsert_game, insert_move;
  Statement append_log, archive_moves, packed_has_seq, relocate_moves, trim_below, trim_all;
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
    sqlite::OpenOptions open;
    open.synchronous =
        options_.synchronous == SqliteStoreOptions::Synchronous::kFull ? "FULL" : "NORMAL";
    open.quick_check = options_.quick_check_at_open;
    writer_db_ = sqlite::open_writer(file_, open);
    statements_ = std::make_unique<Statements>(*writer_db_);
    rebuild_live();
    reader_db_ = sqlite::open_reader(file_);
  } catch (const Error& error) {
    statements_.reset();
    writer_db_.reset();
    ::close(lock_fd_);
    throw StoreError("cannot prepare data file " + file_.string() + ": " + error.what());
  } catch (...) {
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
  // An event loop's thread may still be committing a batch it took before the writer drained
  // the queue: the connection closes after it.
  std::lock_guard commit(commit_mutex_);
  // Statements before their connections; the last connection to close checkpoints the WAL.
  statements_.reset();
  writer_db_.reset();
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
  enqueue({PruneBefore{before_ms}, nullptr, std::chrono::steady_clock::now()});
}

void SqliteStore::prune_idle_players(UnixMillis before_ms) {
  enqueue({PrunePlayers{before_ms}, nullptr, std::chrono::steady_clock::now()});
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
    wake_.wait(lock, [this] { return writer_work_ > 0 || pass_skipped_ || stopping_; });
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
  std::vector<Write> batch;
  std::vector<char> ok;
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
         !std::holds_alternative<PruneBefore>(write.record) &&
         !std::holds_alternative<PrunePlayers>(write.record);
}

void SqliteStore::take_batch(std::vector<Write>& batch, bool records_only) {
  batch.clear();
  std::size_t take = 0;
  while (take < queue_.size() && take < options_.max_batch) {
    if (records_only && !is_record(queue_[take])) break;
    ++take;
  }
  const auto end = queue_.begin() + static_cast<std::ptrdiff_t>(take);
  batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(end));
  queue_.erase(queue_.begin(), end);
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
  batch.clear();
}

bool SqliteStore::commit_batch(std::vector<Write>& batch, std::vector<char>& ok) {
  ok.assign(batch.size(), 0);
  const auto fail_all = [&](const std::string& why) {
    report("a batch of " + std::to_string(batch.size()) + " writes was not stored: " + why);
    live_stale_ = true;  // the batch's appends and archives are not in the file
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto& record = batch[i].record;
      if (const auto* move = std::get_if<MoveRecord>(&record)) {
        broken_games_.emplace(move->room_id, move->game_number);
      }
      ok[i] = std::holds_alternative<FlushMarker>(record) ? 1 : 0;
    }
    return false;
  };
  if (live_stale_) {
    try {
      rebuild_live();
    } catch (const Error& error) {
      return fail_all(std::string("cannot read move_log: ") + error.what());
    }
  }
  try {
    statements_->begin.run();
  } catch (const Error& error) {
    return fail_all(std::string("BEGIN failed: ") + error.what());
  }
  archived_in_batch_ = false;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ok[i] = write_one(batch[i]) ? 1 : 0;
    if (!writer_db_->in_transaction()) {
      // SQLite rolled the whole transaction back (disk full, I/O error): nothing is stored.
      return fail_all("SQLite rolled the transaction back");
    }
  }
  trim_log();
  if (!writer_db_->in_transaction()) return fail_all("SQLite rolled the transaction back");
  try {
    statements_->commit.run();
  } catch (const Error& error) {
    try {
      if (writer_db_->in_transaction()) statements_->rollback.run();
    } catch (const Error& rollback_error) {
      report(std::string("ROLLBACK failed: ") + rollback_error.what());
    }
    return fail_all(std::string("COMMIT failed: ") + error.what());
  }
  return true;
}

bool SqliteStore::write_one(const Write& write) {
  std::string what;
  try {
    if (const auto* player = std::get_if<PlayerRecord>(&write.record)) {
      what = "player " + player->id;
      write_player(*player);
    } else if (const auto* room = std::get_if<RoomRecord>(&write.record)) {
      what = "room " + room->id;
      write_room(*room);
    } else if (const auto* move = std::get_if<MoveRecord>(&write.record)) {
      what = "room " + move->room_id + " game " + std::to_string(move->game_number) + " move seq " +
             std::to_string(move->seq);
      write_move(*move);
    } else if (const auto* prune = std::get_if<PruneBefore>(&write.record)) {
      what = "pruning rooms that ended before " + std::to_string(prune->before_ms);
      statements_->prune_rooms.bind(1, prune->before_ms).run();
    } else if (const auto* idle = std::get_if<PrunePlayers>(&write.record)) {
      what = "pruning players last seen before " + std::to_string(idle->before_ms);
      statements_->prune_players.bind(1, idle->before_ms).run();
    } else if (const auto* rated = std::get_if<RatedGameRecord>(&write.record)) {
      what =
          "the ratings of room " + rated->room_id + " game " + std::to_string(rated->game_number);
      write_rated_game(*rated);
    }
    return true;
  } catch (const std::exception& e) {
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

void SqliteStore::write_room(const RoomRecord& room) {
  if (room.occupants.size() > static_cast<std::size_t>(std::max(room.seats, 0))) {
    throw std::invalid_argument(std::to_string(room.occupants.size()) + " occupants for " +
                                std::to_string(room.seats) + " seats");
  }
  // The room, its seats, its game row and the archive of a game it ends together or not at all.
  auto& s = *statements_;
  const auto live = live_.find(room.id);
  const bool ends_live_game =
      live != live_.end() && (!is_live(room) || live->second.game_number != room.game_number);
  s.savepoint.run();
  try {
    s.upsert_room.bind(1, room.id).bind(2, room.kind).bind(3, std::int64_t{room.seats});
    s.upsert_room.bind(4, room.game_options.dump()).bind(5, room.room_options.dump());
    s.upsert_room.bind(6, room.creator_id).bind(7, status_name(room.status));
    s.upsert_room.bind(8, std::int64_t{room.game_number}).bind(9, room.created_ms);
    s.upsert_room.bind(10, room.finished_ms);
    s.upsert_room.run();
    s.delete_seats.bind(1, room.id).run();
    for (std::size_t seat = 0; seat < room.occupants.size(); ++seat) {
      const auto& occupant = room.occupants[seat];
      if (!occupant) continue;
      s.insert_seat.bind(1, room.id).bind(2, static_cast<std::int64_t>(seat));
      s.insert_seat.bind(3, occupant->player_id).bind(4, occupant->name).bind(5, occupant->bot);
      s.insert_seat.run();
    }
    if (room.game_number > 0) {
      s.upsert_game.bind(1, room.id).bind(2, std::int64_t{room.game_number});
      s.upsert_game.bind(3, seed_bits(room.seed)).bind(4, room.start_seq);
      s.upsert_game.bind(5, room.game_started_ms).bind(6, room.finished_ms);
      s.upsert_game.run();
    }
    if (ends_live_game) archive(room.id, live->second);
    s.release.run();
  } catch (...) {
    for (auto* statement :
         {&s.upsert_room, &s.delete_seats, &s.insert_seat, &s.upsert_game, &s.archive_moves}) {
      statement->reset();
    }
    if (writer_db_->in_transaction()) {
      s.rollback_to.run();
      s.release.run();
    }
    throw;
  }
  // Only once the file has it: a failed write leaves live_ as the file is.
  if (ends_live_game) {
    live_rows_ -= live->second.rows.size();
    live_.erase(live);
    archived_in_batch_ = true;
  }
  if (is_live(room)) live_.try_emplace(room.id, room.game_number);
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

// Packs a game's moves from the log into one row of packed_moves, in append order. Its log
// rows stay until trim_log() passes them; readers take an archived game's moves from
// packed_moves and `moves` only.
void SqliteStore::archive(const std::string& room_id, const LiveGame& game) {
  if (game.rows.empty()) return;
  auto& archive = statements_->archive_moves;
  archive.bind(1, rowid_list(game)).bind(2, room_id).bind(3, std::int64_t{game.game_number});
  archive.bind(4, static_cast<std::int64_t>(game.rows.size())).run();
  if (writer_db_->changes() != 1) {
    throw std::runtime_error("room " + room_id + " game " + std::to_string(game.game_number) +
                             " has moves missing from move_log");
  }
}

void SqliteStore::write_move(const MoveRecord& move) {
  if (broken_games_.contains({move.room_id, move.game_number})) {
    throw std::runtime_error(
        "an earlier move of this game was not stored; refusing later ones "
        "so the log has no gap");
  }
  const auto live = live_.find(move.room_id);
  const bool to_log = live != live_.end() && live->second.game_number == move.game_number;
  // Not the room's live game (no such game, or one already over): straight into `moves`,
  // whose keys refuse what does not belong there.
  auto& s = to_log ? statements_->append_log : statements_->insert_move;
  if (!to_log) {
    // `moves`' keys do not see the seqs of a game packed into packed_moves.
    auto& packed = statements_->packed_has_seq;
    packed.bind(1, move.room_id).bind(2, std::int64_t{move.game_number}).bind(3, move.seq);
    const bool repeated = packed.step();
    packed.reset();
    if (repeated) throw std::runtime_error("the game already has a move with this seq");
  }
  if (to_log) {
    // The log has no key: refuse a seq the game already has here.
    const LiveGame& game = live->second;
    if (move.seq <= game.max_seq &&
        std::any_of(game.rows.begin(), game.rows.end(),
                    [&](const auto& row) { return row.first == move.seq; })) {
      throw std::runtime_error("the game already has a move with this seq");
    }
  }
  s.bind(1, move.room_id).bind(2, std::int64_t{move.game_number}).bind(3, move.seq);
  s.bind(4, std::int64_t{move.seat}).bind(5, move.move.dump()).bind(6, move.at_ms);
  s.bind(7, move.state_hash
                ? std::optional<std::int64_t>(static_cast<std::int64_t>(*move.state_hash))
                : std::nullopt);
  s.run();
  if (!to_log) return;
  LiveGame& game = live->second;
  const std::int64_t rowid = writer_db_->last_insert_rowid();
  game.rows.emplace_back(move.seq, rowid);
  game.max_seq = std::max(game.max_seq, move.seq);
  ++live_rows_;
  log_tail_ = rowid;
  if (!log_floor_) log_floor_ = rowid;
}

// "[rowid,rowid,...]" of a live game's log rows, in append order.
std::string SqliteStore::rowid_list(const LiveGame& game) {
  std::string out = "[";
  for (const auto& row : game.rows) {
    if (out.size() > 1) out += ',';
    out += std::to_string(row.second);
  }
  return out + ']';
}

// Deletes the log rows below its low-water mark — the first row of the oldest live game, or
// everything when no live game has a row — with one range DELETE, after an archive or every
// kTrimEveryCommits commits. First, when the oldest live game lags too far behind the log's
// end, its rows are copied to the end so the mark can move past it. A failure here is
// reported and undone; the batch's writes still commit.
void SqliteStore::trim_log() {
  if (!archived_in_batch_ && ++commits_since_trim_ < kTrimEveryCommits) return;
  commits_since_trim_ = 0;
  if (!log_floor_) return;
  const auto oldest = [this] {
    auto found = live_.end();
    for (auto it = live_.begin(); it != live_.end(); ++it) {
      if (it->second.rows.empty()) continue;
      if (found == live_.end() ||
          it->second.rows.front().second < found->second.rows.front().second)
        found = it;
    }
    return found;
  };
  auto& s = *statements_;
  try {
    s.savepoint.run();
    auto lagging = oldest();
    std::vector<std::pair<std::int64_t, std::int64_t>> moved;
    std::int64_t tail = log_tail_;
    const auto slack = std::max(options_.log_slack, kSlackPerLiveRow * live_rows_);
    if (lagging != live_.end() &&
        static_cast<std::size_t>(log_tail_ - lagging->second.rows.front().second) > slack) {
      const auto& rows = lagging->second.rows;
      s.relocate_moves.bind(1, rowid_list(lagging->second)).run();
      if (static_cast<std::size_t>(writer_db_->changes()) != rows.size()) {
        throw std::runtime_error("room " + lagging->first + " has moves missing from move_log");
      }
      // Appended in order, each with the largest rowid so far plus one.
      tail = writer_db_->last_insert_rowid();
      std::int64_t rowid = tail - static_cast<std::int64_t>(rows.size());
      for (const auto& row : rows) moved.emplace_back(row.first, ++rowid);
    }
    std::optional<std::int64_t> low;
    for (auto it = live_.begin(); it != live_.end(); ++it) {
      if (it->second.rows.empty()) continue;
      const std::int64_t first =
          it == lagging && !moved.empty() ? moved.front().second : it->second.rows.front().second;
      low = std::min(low.value_or(first), first);
    }
    if (!low) {
      s.trim_all.run();
    } else if (*low > *log_floor_) {
      s.trim_below.bind(1, *low).run();
    }
    s.release.run();
    if (!moved.empty()) lagging->second.rows = std::move(moved);
    log_tail_ = tail;
    log_floor_ = low;
  } catch (const std::exception& e) {
    for (auto* statement : {&s.relocate_moves, &s.trim_below, &s.trim_all}) statement->reset();
    report(std::string("move_log was not trimmed: ") + e.what());
    try {
      if (writer_db_->in_transaction()) {
        s.rollback_to.run();
        s.release.run();
      }
    } catch (const Error& error) {
      report(std::string("ROLLBACK TO failed: ") + error.what());
    }
  }
}

// live_ and the log's bounds as the file has them: at open, and after a batch was rolled back.
// The live games are the current games of waiting and playing rooms; log rows of any other
// game were archived and wait for trim_log().
void SqliteStore::rebuild_live() {
  auto& db = *writer_db_;
  live_.clear();
  live_rows_ = 0;
  Statement rooms(db, "SELECT id, game_number FROM rooms WHERE " + std::string(kLiveRoom));
  while (rooms.step()) {
    live_.try_emplace(rooms.column_text(0), static_cast<int>(rooms.column_int(1)));
  }
  log_floor_.reset();
  log_tail_ = 0;
  Statement log(db, "SELECT id, room_id, game_number, seq FROM move_log ORDER BY id");
  while (log.step()) {
    const std::int64_t rowid = log.column_int(0);
    if (!log_floor_) log_floor_ = rowid;
    log_tail_ = rowid;
    const auto live = live_.find(log.column_text(1));
    if (live == live_.end() || live->second.game_number != log.column_int(2)) continue;
    const std::int64_t seq = log.column_int(3);
    live->second.rows.emplace_back(seq, rowid);
    live->second.max_seq = std::max(live->second.max_seq, seq);
    ++live_rows_;
  }
  live_stale_ = false;
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

// Adds each live game's rows of move_log to its moves, then sorts them by seq. The log has no
// index: one scan for all the games. Rows of games that are not live were already archived.
void add_logged(sqlite::Db& db,
                std::map<std::pair<std::string, int>, std::vector<MoveRecord>*>& live_games) {
  if (live_games.empty()) return;
  Statement log(db,
                "SELECT seq, seat, move, at_ms, state_hash, room_id, game_number FROM move_log"
                " ORDER BY id");
  while (log.step()) {
    const auto game = live_games.find({log.column_text(5), static_cast<int>(log.column_int(6))});
    if (game == live_games.end()) continue;
    game->second->push_back(read_move(log, game->first.first, game->first.second));
  }
  for (auto& [key, moves] : live_games) sort_by_seq(*moves);
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

LoadedState SqliteStore::load() {
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&] {
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
    std::map<std::pair<std::string, int>, std::vector<MoveRecord>*> live_games;
    for (auto& loaded : state.rooms) {
      if (is_live(loaded.room))
        live_games[{loaded.room.id, loaded.room.game_number}] = &loaded.moves;
    }
    add_logged(db, live_games);
    return state;
  });
}

std::optional<RoomHistory> SqliteStore::load_room(const std::string& room_id) {
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&]() -> std::optional<RoomHistory> {
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
    // Only the current game can be live; a replay of a finished game never reads the log.
    std::map<std::pair<std::string, int>, std::vector<MoveRecord>*> live_games;
    if (is_live(history.room)) {
      for (auto& game : history.games) {
        if (game.game_number == history.room.game_number) {
          live_games[{room_id, game.game_number}] = &game.moves;
        }
      }
    }
    add_logged(db, live_games);
    return history;
  });
}

std::vector<RatingRow> SqliteStore::load_leaderboard(const std::string& kind, int limit) {
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&] {
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
  std::lock_guard lock(reader_mutex_);
  if (!reader_db_) throw StoreError("data file " + file_.string() + " is closed");
  auto& db = *reader_db_;
  return in_snapshot(db, file_, [&]() -> std::optional<PlayerRatings> {
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
