// SQLite's own behaviour: the move log and archiving, fsyncs per batch, the data directory,
// its lock and damaged files. What every backend must do is in store_test.cpp.
#include "server/store/sqlite_store.h"
#include "server/store/redo_log.h"
#include "server/store/sqlite_schema.h"
#include "server/store/store_test_records.h"
#include "server/store/testing/sqlite_file.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

namespace parlor::server {
namespace {

namespace fs = std::filesystem;
using namespace store_test;

// ---- counting fsyncs: a VFS that is the default one with xSync counted -------------------

std::atomic<int> g_syncs{0};
sqlite3_vfs* g_real_vfs = nullptr;
sqlite3_vfs g_counting_vfs;
// The unix VFS has several io_methods tables (main file, journals); each gets a copy with
// xSync counted.
struct MethodsCopy {
  const sqlite3_io_methods* real = nullptr;
  sqlite3_io_methods counting{};
};
std::array<MethodsCopy, 8> g_methods;
std::mutex g_methods_mutex;

int counting_sync(sqlite3_file* file, int flags) {
  g_syncs.fetch_add(1);
  for (const auto& copy : g_methods) {
    if (&copy.counting == file->pMethods) return copy.real->xSync(file, flags);
  }
  return SQLITE_IOERR;
}

int counting_open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  const int rc = g_real_vfs->xOpen(g_real_vfs, name, file, flags, out_flags);
  if (rc != SQLITE_OK || file->pMethods == nullptr) return rc;
  std::lock_guard lock(g_methods_mutex);
  for (auto& copy : g_methods) {
    if (copy.real == nullptr) {
      copy.real = file->pMethods;
      copy.counting = *file->pMethods;
      copy.counting.xSync = counting_sync;
    }
    if (copy.real == file->pMethods) {
      file->pMethods = &copy.counting;
      break;
    }
  }
  return rc;
}

// Makes every connection opened while it lives count its fsyncs in g_syncs.
class CountingVfs {
 public:
  CountingVfs() {
    g_real_vfs = sqlite3_vfs_find(nullptr);
    g_counting_vfs = *g_real_vfs;
    g_counting_vfs.zName = "parlor-counting";
    g_counting_vfs.pNext = nullptr;
    g_counting_vfs.xOpen = counting_open;
    sqlite3_vfs_register(&g_counting_vfs, 1);
  }
  ~CountingVfs() {
    sqlite3_vfs_register(g_real_vfs, 1);
    sqlite3_vfs_unregister(&g_counting_vfs);
  }
  CountingVfs(const CountingVfs&) = delete;
  CountingVfs& operator=(const CountingVfs&) = delete;
};

// ---- fixtures ------------------------------------------------------------------------------

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "parlor-store-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir_ = root_ / "data";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }

  SqliteStoreOptions options() const {
    SqliteStoreOptions out;
    out.data_dir = dir_;
    out.log_error = [this](std::string_view message) {
      std::lock_guard lock(log_mutex_);
      logged_.emplace_back(message);
    };
    out.log_info = out.log_error;
    return out;
  }
  std::unique_ptr<SqliteStore> open() const { return std::make_unique<SqliteStore>(options()); }
  fs::path file() const { return dir_ / "parlor.db"; }

  // The first column of the first row of `sql`, on a connection of its own (like another
  // process): -1 when there is none.
  std::int64_t query(const std::string& sql) const { return first_value(file(), sql); }
  // Runs `sql` on a connection of its own that may write: "" or SQLite's error.
  std::string exec(const std::string& sql) const {
    sqlite3* db = nullptr;
    std::string out;
    if (sqlite3_open(file().c_str(), &db) != SQLITE_OK) return "cannot open " + file().string();
    sqlite3_busy_timeout(db, 2000);
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      out = error ? error : "sqlite3_exec failed";
      sqlite3_free(error);
    }
    sqlite3_close(db);
    return out;
  }
  bool logged(std::string_view text) const {
    std::lock_guard lock(log_mutex_);
    return std::any_of(logged_.begin(), logged_.end(), [&](const std::string& line) {
      return line.find(text) != std::string::npos;
    });
  }
  // The redo log's file that holds generation `generation`, and the generation the file names.
  fs::path redo_file(std::int64_t generation) const {
    return file().string() + ".redo-" + std::to_string(generation % 2);
  }
  std::int64_t generation() const { return query("SELECT generation FROM redo_state"); }
  // Archived moves: packed into packed_moves, or rows of `moves` (archived by schema 5 and
  // before, or appended to a game that was no longer live).
  std::int64_t archived_rows(const std::string& room_id) const {
    return query("SELECT (SELECT count(*) FROM moves WHERE room_id = '" + room_id +
                 "') + (SELECT coalesce(sum(json_array_length(moves)), 0) FROM packed_moves"
                 " WHERE room_id = '" +
                 room_id + "')");
  }
  std::int64_t packed_rows(const std::string& room_id) const {
    return query("SELECT count(*) FROM packed_moves WHERE room_id = '" + room_id + "'");
  }

  // Writes the data file as a build of schema `version` left it: that version's tables, then
  // `rows` (SQL). Returns "" or SQLite's error.
  std::string write_old_file(std::int64_t version, const std::string& rows) const {
    fs::create_directories(dir_);
    std::string sql;
    for (std::int64_t step = 0; step < version; ++step) sql += std::string(sqlite::migration(step));
    sql += "PRAGMA application_id = " + std::to_string(sqlite::kApplicationId) +
           "; PRAGMA user_version = " + std::to_string(version) + ";" + rows;
    return exec(sql);
  }

  // The message of the StoreError that opening throws ("" when it opens).
  std::string open_error(const SqliteStoreOptions& with) const {
    try {
      SqliteStore store(with);
    } catch (const StoreError& error) {
      return error.what();
    }
    return "";
  }

  fs::path root_;
  fs::path dir_;
  mutable std::mutex log_mutex_;
  mutable std::vector<std::string> logged_;
};

// `m` as an INSERT into `table` (moves or move_log, which share their columns).
std::string insert_move_sql(const std::string& table, const MoveRecord& m) {
  return "INSERT INTO " + table +
         " (room_id, game_number, seq, seat, move, at_ms, state_hash) VALUES ('" + m.room_id +
         "', " + std::to_string(m.game_number) + ", " + std::to_string(m.seq) + ", " +
         std::to_string(m.seat) + ", '" + m.move.dump() + "', " + std::to_string(m.at_ms) + ", " +
         (m.state_hash ? std::to_string(static_cast<std::int64_t>(*m.state_hash)) : "NULL") + ");";
}

// Writes what `writes` queues, then a move of `live_room`'s live game (game 1) too big for the
// file size limit set meanwhile, just above the largest file in `dir`, and flushes: the redo
// log refuses the batch's frame, so every write of the batch fails (a live game's moves go to
// the redo log only, so it is the redo log that refuses, not SQLite).
void in_a_batch_the_disk_refuses(SqliteStore& store, const fs::path& dir,
                                 const std::string& live_room, Outcomes& outcomes,
                                 const std::function<void()>& writes) {
  std::uintmax_t largest = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    largest = std::max(largest, entry.file_size());
  }
  MoveRecord big = move(live_room, 1, 1);
  big.move = {{"padding", std::string(largest + (4 << 20), 'x')}};
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = before;
  limited.rlim_cur = largest + (1 << 20);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  writes();
  store.append_move(std::move(big), outcomes.callback());
  store.flush();
  ::setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// ---- the data directory --------------------------------------------------------------------

TEST_F(SqliteStoreTest, CreatesTheDataDirectoryAndFile) {
  ASSERT_FALSE(fs::exists(dir_));
  open();
  EXPECT_TRUE(fs::is_regular_file(file()));
}

// ---- live games and archiving --------------------------------------------------------------

TEST_F(SqliteStoreTest, AFinishedGameIsArchivedAsOneRowAndALiveGameIsInTheRedoLogOnly) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  const RoomRecord game1 = started(room("r1", "p1"), 1, 11, 0);
  store->save_room(game1, nullptr);
  for (int seq = 1; seq <= 5; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  store->flush();
  EXPECT_EQ(archived_rows("r1"), 0) << "a live game's moves are not in the database file";
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0);
  // A replay of the game in progress has them.
  auto history = store->load_room("r1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->games.size(), 1u);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3, 4, 5});

  Outcomes outcomes;
  store->save_room(ended(game1), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  EXPECT_EQ(archived_rows("r1"), 5);
  EXPECT_EQ(packed_rows("r1"), 1) << "the game's moves packed into one row";
  EXPECT_EQ(query("SELECT count(*) FROM moves"), 0);
  history = store->load_room("r1");
  ASSERT_TRUE(history);
  EXPECT_TRUE(history->games[0].finished_ms);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3, 4, 5});
  EXPECT_TRUE(store->load().rooms.empty());

  // The rematch is live again; its replay and recovery have its moves, and game 1's.
  store->save_room(started(room("r1", "p1"), 2, 22, 6), nullptr);
  for (int seq = 7; seq <= 8; ++seq) store->append_move(move("r1", 2, seq), nullptr);
  store->flush();
  EXPECT_EQ(archived_rows("r1"), 5);
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "r1", 2, {7, 8});
  history = store->load_room("r1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->games.size(), 2u);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3, 4, 5});
  expect_moves(history->games[1].moves, "r1", 2, {7, 8});

  // A move for the archived game goes to `moves`, and a seq it already has is refused there
  // as it would be by `moves`' key.
  store->append_move(move("r1", 1, 6), outcomes.callback());
  store->append_move(move("r1", 1, 3), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 2);
  EXPECT_EQ(outcomes.failed, 1);
  history = store->load_room("r1");
  ASSERT_TRUE(history);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3, 4, 5, 6});
}

// The record that ends a game takes the game's packed row for its archive; when the batch is
// not stored, the live game gets its moves back, and the next record that ends it archives them
// all.
TEST_F(SqliteStoreTest, AGameEndedInABatchTheDiskRefusedKeepsItsMovesForTheNextEnd) {
  auto with = options();
  with.batch_window = std::chrono::seconds(5);  // the flush ends it: the writes share it
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  const RoomRecord game1 = started(room("r1", "p1"), 1, 11, 0);
  store->save_room(game1, nullptr);
  store->save_room(started(room("r2", "p1"), 1, 5, 0), nullptr);
  for (int seq = 1; seq <= 3; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  store->flush();

  // The end of r1's game in one batch that the disk refuses.
  Outcomes outcomes;
  in_a_batch_the_disk_refuses(*store, dir_, "r2", outcomes,
                              [&] { store->save_room(ended(game1), outcomes.callback()); });
  ASSERT_EQ(outcomes.failed, 2) << "the disk refused the batch";
  EXPECT_EQ(archived_rows("r1"), 0);
  auto history = store->load_room("r1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->games.size(), 1u);
  EXPECT_FALSE(history->games[0].finished_ms);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3});

  store->append_move(move("r1", 1, 4), outcomes.callback());
  store->save_room(ended(game1), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 2);
  EXPECT_EQ(packed_rows("r1"), 1);
  EXPECT_EQ(archived_rows("r1"), 4);
  history = store->load_room("r1");
  ASSERT_TRUE(history);
  EXPECT_TRUE(history->games[0].finished_ms);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3, 4});
}

TEST_F(SqliteStoreTest, AnAbandonedGameIsArchivedAndTheOthersStayLive) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  const RoomRecord r1 = started(room("r1", "p1"), 1, 11, 0);
  const RoomRecord r2 = started(room("r2", "p1"), 1, 22, 0);
  store->save_room(r1, nullptr);
  store->save_room(r2, nullptr);
  for (int seq = 1; seq <= 3; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  for (int seq = 1; seq <= 2; ++seq) store->append_move(move("r2", 1, seq), nullptr);
  store->append_move(move("r1", 1, 4), nullptr);
  store->append_move(move("r2", 1, 3), nullptr);
  store->save_room(ended(r1, StoredRoomStatus::kAbandoned), nullptr);
  store->flush();
  EXPECT_EQ(archived_rows("r1"), 4);
  EXPECT_EQ(archived_rows("r2"), 0);
  const auto history = store->load_room("r1");
  ASSERT_TRUE(history);
  EXPECT_EQ(history->room.status, StoredRoomStatus::kAbandoned);
  expect_moves(history->games.at(0).moves, "r1", 1, {1, 2, 3, 4});
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  EXPECT_EQ(state.rooms[0].room.id, "r2");
  expect_moves(state.rooms[0].moves, "r2", 1, {1, 2, 3});

  store->save_room(ended(r2), nullptr);
  store->flush();
  EXPECT_EQ(archived_rows("r2"), 3);
}

TEST_F(SqliteStoreTest, UnfinishedGamesRecoverFromTheRedoLogAndArchiveAfterReopening) {
  const RoomRecord r1 = started(room("r1", "p1"), 1, 11, 0);
  const RoomRecord r2 = started(room("r2", "p1"), 1, 22, 0);
  {
    auto store = open();
    store->save_player(player("p1"), nullptr);
    store->save_room(r1, nullptr);
    store->save_room(r2, nullptr);
    for (int seq = 1; seq <= 3; ++seq) store->append_move(move("r1", 1, seq), nullptr);
    for (int seq = 1; seq <= 2; ++seq) store->append_move(move("r2", 1, seq), nullptr);
  }
  {
    auto store = open();
    const auto state = store->load();
    ASSERT_EQ(state.rooms.size(), 2u);
    expect_moves(state.rooms[0].moves, "r1", 1, {1, 2, 3});
    expect_moves(state.rooms[1].moves, "r2", 1, {1, 2});
    // The store knows the live games' moves again: a seq they have is refused...
    Outcomes duplicate;
    store->append_move(move("r2", 1, 2), duplicate.callback());
    // ...and ending r1 archives its moves from before and after the reopening.
    Outcomes outcomes;
    for (int seq = 4; seq <= 5; ++seq) store->append_move(move("r1", 1, seq), outcomes.callback());
    store->save_room(ended(r1), outcomes.callback());
    store->flush();
    EXPECT_EQ(duplicate.failed, 1);
    EXPECT_EQ(outcomes.ok, 3);
    EXPECT_EQ(archived_rows("r1"), 5);
  }
  auto store = open();
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "r2", 1, {1, 2});
  const auto history = store->load_room("r1");
  ASSERT_TRUE(history);
  expect_moves(history->games.at(0).moves, "r1", 1, {1, 2, 3, 4, 5});
  store->save_room(ended(r2, StoredRoomStatus::kAbandoned), nullptr);
  store->flush();
  EXPECT_EQ(archived_rows("r1"), 5);
  EXPECT_EQ(archived_rows("r2"), 2);
}

// ---- records that wait for SQLite ------------------------------------------------------
//
// A batch is acknowledged once its redo log frame is durable; its records reach SQLite's file
// later, together (database_lag), a room's record that a later one of the same game
// supersedes left out. A reader brings the file up to date first.

// Polls `done` for up to five seconds.
bool eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Three games of one room and a rating, all acknowledged within one wait for the file.
void play_three_games(SqliteStore& store, Outcomes& acked) {
  store.save_player(player("p1"), acked.callback());
  store.save_player(player("p2"), acked.callback());
  RoomRecord r = room("r1", "p1");
  r.occupants[1] = SeatRecord{"p2", "Name p2", std::nullopt};
  store.save_room(r, acked.callback());
  store.save_room(started(r, 1, 11, 0), acked.callback());
  for (int seq = 1; seq <= 3; ++seq) store.append_move(move("r1", 1, seq), acked.callback());
  store.save_room(ended(started(r, 1, 11, 0)), acked.callback());
  store.record_rated_game(rated_game("r1", 1, {"p1", "p2"}, {0, 1}, {0, 1}), acked.callback());
  store.save_room(started(r, 2, 22, 4), acked.callback());
  for (int seq = 5; seq <= 6; ++seq) store.append_move(move("r1", 2, seq), acked.callback());
  store.save_room(ended(started(r, 2, 22, 4)), acked.callback());
  store.save_room(started(r, 3, 33, 7), acked.callback());
  store.append_move(move("r1", 3, 8), acked.callback());
}
constexpr int kThreeGamesWrites = 15;

void expect_three_games(SqliteStore& store) {
  const auto history = store.load_room("r1");
  ASSERT_TRUE(history);
  EXPECT_EQ(history->room.game_number, 3);
  EXPECT_EQ(history->room.status, StoredRoomStatus::kPlaying);
  ASSERT_EQ(history->games.size(), 3u);
  EXPECT_EQ(history->games[0].seed, 11u);
  EXPECT_TRUE(history->games[0].finished_ms);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3});
  EXPECT_EQ(history->games[1].start_seq, 4);
  EXPECT_TRUE(history->games[1].finished_ms);
  expect_moves(history->games[1].moves, "r1", 2, {5, 6});
  EXPECT_FALSE(history->games[2].finished_ms);
  expect_moves(history->games[2].moves, "r1", 3, {8});
  ASSERT_TRUE(history->room.occupants[1]);
  EXPECT_EQ(history->room.occupants[1]->player_id, "p2");
  const auto ratings = store.load_player_ratings("p2", 5);
  ASSERT_TRUE(ratings);
  ASSERT_EQ(ratings->ratings.size(), 1u);
  EXPECT_EQ(ratings->ratings[0].games, 1);
}

// A store whose records wait an hour for the file, with play_three_games played on it and
// acknowledged (counted in `acked`).
std::unique_ptr<SqliteStore> three_games_waiting(SqliteStoreOptions with, Outcomes& acked) {
  with.database_lag = std::chrono::hours(1);
  auto store = std::make_unique<SqliteStore>(with);
  play_three_games(*store, acked);
  EXPECT_TRUE(eventually([&] { return acked.ok + acked.failed == kThreeGamesWrites; }));
  EXPECT_EQ(acked.failed, 0);
  return store;
}

TEST_F(SqliteStoreTest, AcknowledgedRecordsWaitForTheFileAndEveryReaderSeesThem) {
  Outcomes acked;
  auto store = three_games_waiting(options(), acked);
  ASSERT_EQ(acked.ok, kThreeGamesWrites);
  EXPECT_EQ(query("SELECT count(*) FROM rooms"), 0) << "acknowledged, not yet in the file";
  EXPECT_EQ(query("SELECT count(*) FROM rated_games"), 0);
  // The reader writes what waited, then reads: the games, their archives and the rating, the
  // first game's rows intact though its start record was superseded by its end.
  expect_three_games(*store);
  EXPECT_EQ(query("SELECT count(*) FROM rooms"), 1);
  EXPECT_EQ(query("SELECT count(*) FROM games WHERE room_id = 'r1'"), 3);
  EXPECT_EQ(packed_rows("r1"), 2);
  EXPECT_EQ(query("SELECT count(*) FROM rated_games"), 1);
  EXPECT_EQ(query("SELECT count(*) FROM room_seats WHERE room_id = 'r1'"), 3);
  EXPECT_FALSE(logged("not written to the database"));
}

// A room whose row is in the file already: of its records that wait together, only the last
// rewrites the room row and the seats; the earlier ones write their game rows (each game's
// seed, start and end), so the file ends as if every record had been written in turn.
TEST_F(SqliteStoreTest, OnlyALaterRoomRecordOfTheSameWaitRewritesTheRoomRow) {
  auto with = options();
  with.database_lag = std::chrono::hours(1);
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_player(player("p2"), nullptr);
  store->save_room(room("r1", "p1"), nullptr);
  store->flush();
  ASSERT_EQ(query("SELECT count(*) FROM rooms"), 1);
  // Counts the room row's updates from here on (a trigger in the file, which the store's
  // statements fire).
  ASSERT_EQ(exec("CREATE TABLE room_row_writes (n INTEGER);"
                 "CREATE TRIGGER count_room_row_writes AFTER UPDATE ON rooms"
                 " BEGIN INSERT INTO room_row_writes VALUES (1); END;"),
            "");
  Outcomes acked;
  play_three_games(*store, acked);
  ASSERT_TRUE(eventually([&] { return acked.ok + acked.failed == kThreeGamesWrites; }));
  ASSERT_EQ(acked.failed, 0);
  expect_three_games(*store);  // the reader writes what waited first
  EXPECT_EQ(query("SELECT count(*) FROM room_row_writes"), 1)
      << "the records before the last one of r1 left its room row alone";
  EXPECT_EQ(query("SELECT game_number FROM rooms WHERE id = 'r1'"), 3);
  EXPECT_EQ(query("SELECT count(*) FROM games WHERE room_id = 'r1' AND finished_ms IS NOT NULL"),
            2);
  EXPECT_EQ(query("SELECT start_seq FROM games WHERE room_id = 'r1' AND game_number = 3"), 7);
  EXPECT_EQ(query("SELECT count(*) FROM room_seats WHERE room_id = 'r1'"), 3);
  EXPECT_FALSE(logged("not written to the database"));
  // And so it stays after a restart.
  store.reset();
  store = open();
  expect_three_games(*store);
}

TEST_F(SqliteStoreTest, WaitingRecordsReachTheFileOnceTheLagHasPassedWithNothingElseWritten) {
  auto with = options();
  with.database_lag = std::chrono::milliseconds(100);
  auto store = std::make_unique<SqliteStore>(with);
  Outcomes acked;
  store->save_player(player("p1"), acked.callback());
  store->save_room(room("r1", "p1"), acked.callback());
  ASSERT_TRUE(eventually([&] { return acked.ok == 2; }));
  EXPECT_TRUE(eventually([&] { return query("SELECT count(*) FROM rooms") == 1; }))
      << "the writer writes them when the lag is over";
  EXPECT_EQ(query("SELECT count(*) FROM players"), 1);
}

TEST_F(SqliteStoreTest, AFlushLeavesEverythingAcknowledgedInTheFile) {
  auto with = options();
  with.database_lag = std::chrono::hours(1);
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_room(room("r1", "p1"), nullptr);
  store->flush();
  EXPECT_EQ(query("SELECT count(*) FROM rooms"), 1);
}

// ---- the redo log: what a power loss takes from SQLite, and torn tails ---------------------
//
// SQLite commits a batch without an fsync (synchronous = NORMAL); the batch is acknowledged
// once its frame in the redo log is fdatasynced. A power loss can take SQLite's commits since
// it last synced (when the log starts a generation, and at checkpoints), never a frame; and it
// can leave the last frame torn, which was never acknowledged. These tests build the disk such
// a power loss leaves: the data file and its WAL copied when SQLite had last synced them, and
// the redo log's files as the acknowledged writes left them, or cut.

class PowerLossTest : public SqliteStoreTest {
 protected:
  // The data file and its WAL as they are now, idle and synced, into crashed().
  void keep_what_sqlite_synced() const {
    fs::remove_all(crashed());
    fs::create_directories(crashed());
    fs::copy_file(file(), crashed() / "parlor.db");
    if (fs::exists(file().string() + "-wal")) {
      fs::copy_file(file().string() + "-wal", crashed() / "parlor.db-wal");
    }
  }
  // The redo log's files as they are now, into crashed().
  void keep_redo_log() const {
    for (int which = 0; which < 2; ++which) {
      const fs::path log = redo_file(which);
      if (fs::exists(log)) {
        fs::copy_file(log, crashed() / log.filename(), fs::copy_options::overwrite_existing);
      }
    }
  }
  fs::path crashed() const { return root_ / "crashed"; }
  // The server starting on the crashed disk.
  std::unique_ptr<SqliteStore> restart(SqliteStoreOptions with) {
    dir_ = crashed();
    with.data_dir = dir_;
    return std::make_unique<SqliteStore>(with);
  }
  // Where generation `generation`'s last frame ends in its file.
  std::uint64_t frames_end(std::int64_t generation) const {
    std::uint64_t end = 0;
    for (const auto& frame :
         RedoLog(redo_file(generation)).read(static_cast<std::uint64_t>(generation))) {
      end += RedoLog::kHeaderBytes + frame.payload.size();
    }
    return end;
  }
};

// A kill (or a power loss) while acknowledged records wait for the file: the file and the
// redo log as they are then, and the records come back from the log at the next start.
TEST_F(PowerLossTest, RecordsThatWaitedForTheFileComeBackFromTheRedoLog) {
  Outcomes acked;
  auto store = three_games_waiting(options(), acked);
  ASSERT_EQ(acked.ok, kThreeGamesWrites);
  ASSERT_EQ(query("SELECT count(*) FROM rooms"), 0);
  keep_what_sqlite_synced();
  keep_redo_log();
  store.reset();

  auto restarted = restart(options());
  const auto state = restarted->load();
  ASSERT_EQ(state.players.size(), 2u);
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "r1", 3, {8});
  expect_three_games(*restarted);
  EXPECT_TRUE(logged("recovered")) << "the log, not the file, had them";
}

TEST_F(PowerLossTest, SqlitesLostCommitsAreReplayedFromTheRedoLogAndNothingAcknowledgedIsLost) {
  auto store = open();
  keep_what_sqlite_synced();  // the store synced at open; nothing since
  Outcomes acknowledged;
  store->save_player(player("p1"), acknowledged.callback());
  store->save_player(player("p2"), acknowledged.callback());
  store->save_room(started(room("r1", "p1"), 1, 11, 0), acknowledged.callback());
  store->save_room(started(room("r2", "p2"), 1, 22, 0), acknowledged.callback());
  store->flush();
  for (int seq = 1; seq <= 5; ++seq) {
    store->append_move(move("r1", 1, seq), acknowledged.callback());
    if (seq <= 2) store->append_move(move("r2", 1, seq), acknowledged.callback());
    store->flush();
  }
  store->save_room(ended(started(room("r2", "p2"), 1, 22, 0)), acknowledged.callback());
  store->record_rated_game(rated_game("r2", 1, {"p2", "p1"}, {0, 1}, {0, 1}),
                           acknowledged.callback());
  store->flush();
  ASSERT_EQ(acknowledged.ok, 13);
  keep_redo_log();
  store.reset();

  // The synced file alone has none of it, and the store refuses to start without its log:
  // the power loss is real, and the log is what brings the writes back.
  {
    fs::copy(crashed(), root_ / "without");
    for (const auto& entry : fs::directory_iterator(root_ / "without")) {
      if (entry.path().filename().string().find(".redo-") != std::string::npos) {
        fs::remove(entry.path());
      }
    }
    auto without = options();
    without.data_dir = root_ / "without";
    EXPECT_NE(open_error(without).find("has lost the start of generation"), std::string::npos)
        << open_error(without);
  }

  auto recovered = restart(options());
  // The batches that had more than moves of live games were SQLite's: the players and rooms,
  // then r2's end and its rating.
  EXPECT_TRUE(logged("recovered 6 acknowledged writes in 2 batches"))
      << ::testing::PrintToString(logged_);
  const auto state = recovered->load();
  EXPECT_EQ(state.players.size(), 2U);
  ASSERT_EQ(state.rooms.size(), 1U);
  EXPECT_EQ(state.rooms[0].room.id, "r1");
  expect_moves(state.rooms[0].moves, "r1", 1, {1, 2, 3, 4, 5});
  const auto r2 = recovered->load_room("r2");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->room.status, StoredRoomStatus::kFinished);
  expect_moves(r2->games.at(0).moves, "r2", 1, {1, 2});
  EXPECT_EQ(packed_rows("r2"), 1);
  ASSERT_TRUE(recovered->load_player_ratings("p2", 5));
  EXPECT_EQ(recovered->load_player_ratings("p2", 5)->games.size(), 1U);

  // The log started a new generation; the store goes on, and reopens with everything.
  Outcomes later;
  recovered->append_move(move("r1", 1, 6), later.callback());
  recovered->flush();
  EXPECT_EQ(later.ok, 1);
  recovered.reset();
  expect_moves(open()->load().rooms.at(0).moves, "r1", 1, {1, 2, 3, 4, 5, 6});
}

TEST_F(PowerLossTest, ATornLastFrameWasNeverAcknowledgedAndEverythingBeforeItIsReplayed) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 11, 0), nullptr);
  store->flush();
  keep_what_sqlite_synced();
  for (int seq = 1; seq <= 5; ++seq) {
    store->append_move(move("r1", 1, seq), nullptr);
    store->flush();
  }
  keep_redo_log();
  const std::int64_t current = generation();
  const auto frames = RedoLog(redo_file(current)).read(static_cast<std::uint64_t>(current));
  ASSERT_EQ(frames.size(), 7U)
      << "the generation's first frame, the player and room, then one frame per move";
  // The power went during move 5's fdatasync: its frame's last byte never reached the disk,
  // so it was never acknowledged.
  {
    std::fstream out(crashed() / redo_file(current).filename(),
                     std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(frames_end(current) - 1));
    out.put('\x7f');
  }
  store.reset();
  auto recovered = restart(options());
  EXPECT_FALSE(logged("recovered")) << "moves of a live game were never the file's to lose";
  expect_moves(recovered->load().rooms.at(0).moves, "r1", 1, {1, 2, 3, 4});
  Outcomes again;
  recovered->append_move(move("r1", 1, 5), again.callback());
  recovered->flush();
  EXPECT_EQ(again.ok, 1);
  recovered.reset();
  expect_moves(open()->load().rooms.at(0).moves, "r1", 1, {1, 2, 3, 4, 5});
}

TEST_F(PowerLossTest, BytesOfAFrameThatNeverCompletedAreIgnored) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 11, 0), nullptr);
  for (int seq = 1; seq <= 3; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  store->flush();
  keep_what_sqlite_synced();
  keep_redo_log();
  const std::int64_t current = generation();
  // A next frame's header and half its payload, its bytes whatever the disk had.
  {
    std::fstream out(crashed() / redo_file(current).filename(),
                     std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(frames_end(current)));
    std::string noise(RedoLog::kHeaderBytes + 100, '\0');
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>(i * 131 + 7);
    noise.replace(0, 4, "PRDO");
    out.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
  store.reset();
  auto recovered = restart(options());
  expect_moves(recovered->load().rooms.at(0).moves, "r1", 1, {1, 2, 3});
  Outcomes outcomes;
  recovered->append_move(move("r1", 1, 4), outcomes.callback());
  recovered->flush();
  EXPECT_EQ(outcomes.ok, 1);
  recovered.reset();
  expect_moves(open()->load().rooms.at(0).moves, "r1", 1, {1, 2, 3, 4});
}

// A generation ends when its file is large enough: the next starts in the other file with the
// live games' moves, once SQLite has synced everything else. An idle game's moves are carried
// from generation to generation and never lost; a power loss at any point recovers.
TEST_F(PowerLossTest, GenerationsCarryTheLiveGamesForwardAndAPowerLossAtAnyPointRecovers) {
  auto with = options();
  with.redo_rotate_bytes = 2048;  // a few dozen frames a generation
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("idle", "p1"), 1, 11, 0), nullptr);
  store->save_room(started(room("busy", "p1"), 1, 22, 0), nullptr);
  for (int seq = 1; seq <= 2; ++seq) store->append_move(move("idle", 1, seq), nullptr);
  store->flush();
  std::int64_t synced_generation = generation();
  int synced_at = 0;
  keep_what_sqlite_synced();
  constexpr int kMoves = 120;
  Outcomes acknowledged;
  for (int seq = 1; seq <= kMoves; ++seq) {
    store->append_move(move("busy", 1, seq), acknowledged.callback());
    store->flush();
    if (generation() != synced_generation) {
      synced_generation = generation();
      synced_at = seq;
      keep_what_sqlite_synced();
    }
  }
  ASSERT_EQ(acknowledged.ok, kMoves);
  ASSERT_GE(synced_generation, 4) << "the log started over more than once";
  ASSERT_LT(synced_at, kMoves) << "moves were acknowledged after the last start";
  keep_redo_log();
  store.reset();
  auto recovered = restart(with);
  std::vector<std::int64_t> all(kMoves);
  std::iota(all.begin(), all.end(), 1);
  const auto state = recovered->load();
  ASSERT_EQ(state.rooms.size(), 2U);
  for (const auto& loaded : state.rooms) {
    if (loaded.room.id == "idle") expect_moves(loaded.moves, "idle", 1, {1, 2});
    if (loaded.room.id == "busy") expect_moves(loaded.moves, "busy", 1, all);
  }
  recovered->save_room(ended(started(room("idle", "p1"), 1, 11, 0)), nullptr);
  recovered->flush();
  EXPECT_EQ(archived_rows("idle"), 2);
  EXPECT_EQ(archived_rows("busy"), 0);
}

// A file as the build before ratings (schema version 3) left it: migrated to the rating
// tables, its data kept.
TEST_F(SqliteStoreTest, AVersion3FileGainsTheRatingTables) {
  ASSERT_EQ(write_old_file(3, "INSERT INTO players VALUES ('p1', 'P', zeroblob(32), 1);"), "");
  auto store = open();
  EXPECT_EQ(query("PRAGMA user_version"), sqlite::kSchemaVersion);
  EXPECT_EQ(query("SELECT count(*) FROM players"), 1);
  EXPECT_EQ(query("SELECT count(*) FROM ratings"), 0);
  store->record_rated_game(rated_game("r", 1, {"p1", "bot:greedy"}, {0, 1}, {1, 0}), nullptr);
  store->flush();
  EXPECT_EQ(query("SELECT count(*) FROM ratings"), 2);
  EXPECT_EQ(query("SELECT games FROM ratings WHERE player_id = 'bot:greedy'"), 1);
}

// A file as the build before player retention (schema version 4) left it: its players count
// as last seen when they were created, and the oldest are pruned first.
TEST_F(SqliteStoreTest, AVersion4FileGainsLastSeenTimes) {
  ASSERT_EQ(write_old_file(4,
                           "INSERT INTO players VALUES ('old', 'P', zeroblob(32), 10);"
                           "INSERT INTO players VALUES ('new', 'Q', zeroblob(32), 5000);"),
            "");
  auto store = open();
  EXPECT_EQ(query("PRAGMA user_version"), sqlite::kSchemaVersion);
  EXPECT_EQ(query("SELECT last_seen_ms FROM players WHERE id = 'old'"), 10);
  EXPECT_EQ(query("SELECT last_seen_ms FROM players WHERE id = 'new'"), 5000);
  store->prune_idle_players(1000);
  store->flush();
  const auto state = store->load();
  ASSERT_EQ(state.players.size(), 1u);
  EXPECT_EQ(state.players[0].id, "new");
  EXPECT_EQ(state.players[0].last_seen_ms, 5000);
}

// A file as the build before packed archives (schema version 5) left it: a game archived
// row by row into `moves`, and a game still live in the log. The old game reads as before,
// the live one is packed when it ends, and pruning removes both kinds of archive.
TEST_F(SqliteStoreTest, AVersion5FileKeepsItsArchivedGamesAndPacksTheNextOnes) {
  std::string rows =
      "INSERT INTO players VALUES ('p1', 'P', zeroblob(32), 1, 1);"
      "INSERT INTO rooms VALUES ('live', 'hearts', 4, '{}', '{}', 'p1', 'playing', 1, 1, NULL);"
      "INSERT INTO rooms VALUES ('done', 'hearts', 4, '{}', '{}', 'p1', 'finished', 1, 1, 9);"
      "INSERT INTO games VALUES ('live', 1, 11, 0, 2, NULL), ('done', 1, 22, 0, 2, 9);";
  for (const auto& m : {move("done", 1, 1), move("done", 1, 2)})
    rows += insert_move_sql("moves", m);
  for (const auto& m : {move("live", 1, 1), move("live", 1, 2)}) {
    rows += insert_move_sql("move_log", m);
  }
  ASSERT_EQ(write_old_file(5, rows), "");
  auto store = open();
  EXPECT_EQ(query("PRAGMA user_version"), sqlite::kSchemaVersion);
  const auto done = store->load_room("done");
  ASSERT_TRUE(done);
  expect_moves(done->games.at(0).moves, "done", 1, {1, 2});
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "live", 1, {1, 2});

  Outcomes outcomes;
  store->append_move(move("live", 1, 3), outcomes.callback());
  store->save_room(ended(state.rooms[0].room), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 2);
  EXPECT_EQ(packed_rows("live"), 1);
  EXPECT_EQ(packed_rows("done"), 0) << "an old archive is not rewritten";
  const auto history = store->load_room("live");
  ASSERT_TRUE(history);
  expect_moves(history->games.at(0).moves, "live", 1, {1, 2, 3});

  store->prune_ended_rooms(1'800'000'000'000);
  store->flush();
  EXPECT_FALSE(store->load_room("done"));
  EXPECT_FALSE(store->load_room("live"));
  EXPECT_EQ(archived_rows("done") + archived_rows("live"), 0) << "the moves go with their room";
}

// A file as the build before the move log (schema version 2) left it, mid-game.
TEST_F(SqliteStoreTest, AVersion2FileWithAnUnfinishedGameRecoversAfterMigration) {
  std::string rows =
      "INSERT INTO players VALUES ('p1', 'P', zeroblob(32), 1);"
      "INSERT INTO rooms VALUES ('live', 'hearts', 4, '{}', '{}', 'p1', 'playing', 1, 1, NULL);"
      "INSERT INTO rooms VALUES ('done', 'hearts', 4, '{}', '{}', 'p1', 'finished', 1, 1, 9);"
      "INSERT INTO games VALUES ('live', 1, 11, 0, 2, NULL), ('done', 1, 22, 0, 2, 9);";
  for (const auto& m : {move("live", 1, 1), move("live", 1, 2), move("live", 1, 3),
                        move("done", 1, 1), move("done", 1, 2)}) {
    rows += insert_move_sql("moves", m);
  }
  ASSERT_EQ(write_old_file(2, rows), "");
  auto store = open();
  EXPECT_EQ(query("PRAGMA user_version"), sqlite::kSchemaVersion);
  // The live game's moves moved to move_log, then to the redo log; the finished game's stayed.
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0);
  EXPECT_EQ(archived_rows("live"), 0);
  EXPECT_EQ(archived_rows("done"), 2);
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  EXPECT_EQ(state.rooms[0].room.id, "live");
  EXPECT_EQ(state.rooms[0].room.seed, 11u);
  expect_moves(state.rooms[0].moves, "live", 1, {1, 2, 3});
  const auto done = store->load_room("done");
  ASSERT_TRUE(done);
  expect_moves(done->games.at(0).moves, "done", 1, {1, 2});

  // The game goes on and ends as any other.
  Outcomes outcomes;
  store->append_move(move("live", 1, 4), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  store->save_room(ended(state.rooms[0].room), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 2);
  EXPECT_EQ(archived_rows("live"), 4);
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0);
}

// ---- write-ahead and group commit ----------------------------------------------------------

TEST_F(SqliteStoreTest, ABatchIsOneFrameOfTheRedoLogAndSqliteDoesNotFsyncIt) {
  CountingVfs counting;
  auto with = options();
  with.batch_window = std::chrono::milliseconds(5);
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
  store->flush();

  constexpr int kMoves = 1000;
  const auto batches_before = store->stats().batches;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kMoves / 4; ++i) store->append_move(move("r1", 1, t * 1000 + i), nullptr);
    });
  }
  for (auto& thread : threads) thread.join();
  store->flush();
  const auto batches = store->stats().batches - batches_before;
  EXPECT_GE(batches, 1U);
  EXPECT_LT(batches, static_cast<std::uint64_t>(kMoves / 10))
      << "1000 appends should take a few dozen frames at most";
  store.reset();

  // Without grouping every write is its own frame; SQLite syncs only when the log starts a
  // generation (at open) and at checkpoints.
  with.batch_window = std::chrono::microseconds(0);
  with.max_batch = 1;
  store = std::make_unique<SqliteStore>(with);
  g_syncs = 0;
  const std::int64_t current = generation();
  for (int i = 0; i < 100; ++i) store->append_move(move("r1", 1, 10'000 + i), nullptr);
  store->flush();
  EXPECT_LT(g_syncs.load(), 10);
  EXPECT_EQ(RedoLog(redo_file(current)).read(static_cast<std::uint64_t>(current)).size(), 101U)
      << "the generation's first frame, then one a move";
}

// A room record whose seats did not change leaves their rows alone (the store remembers what
// it last wrote for the room). A batch the disk refused must not count as written: the same
// seats saved again afterwards are written. The refusal is a real one, the file size limit
// (RLIMIT_FSIZE) making the redo log's growth fail with EFBIG.
TEST_F(SqliteStoreTest, SeatsOfABatchTheDiskRefusedAreWrittenByTheNextRecord) {
  auto with = options();
  with.batch_window = std::chrono::seconds(5);  // the flush ends it: the two writes share it
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_player(player("p2"), nullptr);
  RoomRecord r = room("r1", "p1");
  store->save_room(r, nullptr);
  store->save_room(started(room("r2", "p1"), 1, 5, 0), nullptr);
  store->flush();

  // The seats' change in one batch that the disk refuses.
  RoomRecord refused = r;
  refused.occupants[0] = SeatRecord{"p2", "Name p2", std::nullopt};
  Outcomes outcomes;
  in_a_batch_the_disk_refuses(*store, dir_, "r2", outcomes,
                              [&] { store->save_room(refused, outcomes.callback()); });
  ASSERT_EQ(outcomes.failed, 2) << "the disk refused the batch";

  RoomRecord moved = r;
  moved.occupants[0] = SeatRecord{"p2", "Name p2", std::nullopt};
  store->save_room(moved, outcomes.callback());
  store->save_room(moved, outcomes.callback());  // the same seats again: nothing to write
  store->flush();
  EXPECT_EQ(outcomes.ok, 2);
  store.reset();
  const auto loaded = open()->load_room("r1");
  ASSERT_TRUE(loaded);
  const auto& seat = loaded->room.occupants[0];
  ASSERT_TRUE(seat);
  EXPECT_EQ(seat->player_id, "p2");
  EXPECT_EQ(query("SELECT count(*) FROM room_seats WHERE room_id = 'r1' AND seat = 0"), 1);
}

// Pruning deletes a room with its seats: a later record of the room with the same seats (a
// room still open in memory after its replay's retention) writes them again.
TEST_F(SqliteStoreTest, APrunedRoomSavedAgainGetsItsSeatsBack) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  const RoomRecord r = ended(started(room("r1", "p1"), 1, 5, 0));
  store->save_room(r, nullptr);
  store->flush();
  store->prune_ended_rooms(*r.finished_ms + 1);
  store->flush();
  ASSERT_FALSE(store->load_room("r1"));
  Outcomes outcomes;
  store->save_room(r, outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  const auto loaded = store->load_room("r1");
  ASSERT_TRUE(loaded);
  ASSERT_TRUE(loaded->room.occupants[0]);
  EXPECT_EQ(loaded->room.occupants[0]->player_id, "p1");
  ASSERT_TRUE(loaded->room.occupants[2]);
  EXPECT_EQ(loaded->room.occupants[2]->bot, "greedy");
}

// ---- secrets -------------------------------------------------------------------------------

TEST_F(SqliteStoreTest, OnlyTheTokenHashIsEverWritten) {
  const std::string token = "tok-7f3a9c2e5b1d4f60a8e2c7b9d1f3a5e7";
  PlayerRecord p = player("p1");
  // Stand-in for Identity::hash_token: the store is given 32 bytes and nothing else.
  std::mt19937 bytes(42);
  for (auto& b : p.token_hash) b = static_cast<unsigned char>(bytes() & 0xff);
  {
    auto store = open();
    store->save_player(p, nullptr);
    store->flush();
    std::string everything = read_bytes(file()) + read_bytes(file().string() + "-wal");
    EXPECT_EQ(everything.find(token), std::string::npos);
    EXPECT_NE(everything.find(std::string(p.token_hash.begin(), p.token_hash.end())),
              std::string::npos);
  }
  EXPECT_EQ(read_bytes(file()).find(token), std::string::npos);
}

// ---- clear errors at start -----------------------------------------------------------------

TEST_F(SqliteStoreTest, AGarbageFileIsAClearErrorNotAnEmptyLobby) {
  fs::create_directories(dir_);
  std::ofstream(file(), std::ios::binary) << std::string(8192, 'x') << "this is not sqlite";
  const std::string error = open_error(options());
  EXPECT_NE(error.find("data file " + file().string() + " is not a SQLite database"),
            std::string::npos)
      << error;
  EXPECT_EQ(read_bytes(file()).substr(0, 4), "xxxx");  // untouched
}

TEST_F(SqliteStoreTest, ACorruptFileIsAClearError) {
  {
    auto store = open();
    store->save_player(player("p1"), nullptr);
    store->save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
    for (int seq = 1; seq <= 2000; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  }
  ASSERT_FALSE(fs::exists(file().string() + "-wal"));  // checkpointed at close
  const auto size = fs::file_size(file());
  ASSERT_GT(size, 16u * 4096u);
  {
    std::fstream out(file(), std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(size / 2));
    const std::string junk(4 * 4096, '\xA5');
    out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const std::string error = open_error(options());
  EXPECT_NE(error.find("data file " + file().string() + " is corrupt"), std::string::npos) << error;
}

TEST_F(SqliteStoreTest, AnotherSqliteDatabaseIsRefused) {
  fs::create_directories(dir_);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE invoices (id INTEGER)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string error = open_error(options());
  EXPECT_NE(error.find("is a SQLite database but not a Parlor data file"), std::string::npos)
      << error;
}

TEST_F(SqliteStoreTest, ANewerSchemaIsRefused) {
  open();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const std::string error = open_error(options());
  EXPECT_NE(error.find("has schema version 99, newer than this build's " +
                       std::to_string(sqlite::kSchemaVersion)),
            std::string::npos)
      << error;
}

TEST_F(SqliteStoreTest, ADataDirectoryThatCannotBeCreatedIsAClearError) {
  fs::create_directories(root_);
  std::ofstream(root_ / "a-file") << "x";
  auto with = options();
  with.data_dir = root_ / "a-file" / "data";
  const std::string error = open_error(with);
  EXPECT_NE(error.find("cannot create data directory " + with.data_dir.string()), std::string::npos)
      << error;
}

TEST_F(SqliteStoreTest, AnUnwritableDataDirectoryIsAClearError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string error = open_error(options());
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_NE(error.find(dir_.string()), std::string::npos) << error;
  EXPECT_NE(error.find("writable"), std::string::npos) << error;
}

TEST_F(SqliteStoreTest, ASecondServerOnTheSameFileIsRefused) {
  auto first = open();
  const std::string error = open_error(options());
  EXPECT_NE(error.find("is in use by another parlor-server"), std::string::npos) << error;
  first.reset();
  EXPECT_EQ(open_error(options()), "");
}

TEST_F(SqliteStoreTest, NormalSynchronousAlsoOpensAndStores) {
  auto with = options();
  with.synchronous = SqliteStoreOptions::Synchronous::kNormal;
  {
    SqliteStore store(with);
    store.save_player(player("p1"), nullptr);
  }
  SqliteStore store(with);
  EXPECT_EQ(store.load().players.size(), 1u);
}

}  // namespace
}  // namespace parlor::server
