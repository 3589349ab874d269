// SQLite's own behaviour: the move log and archiving, fsyncs per batch, the data directory,
// its lock and damaged files. What every backend must do is in store_test.cpp.
#include "server/store/sqlite_store.h"
#include "server/store/sqlite_schema.h"
#include "server/store/store_test_records.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
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
    return out;
  }
  std::unique_ptr<SqliteStore> open() const { return std::make_unique<SqliteStore>(options()); }
  fs::path file() const { return dir_ / "parlor.db"; }

  // The first column of the first row of `sql`, on a connection of its own (like another
  // process): -1 when there is none.
  std::int64_t query(const std::string& sql) const {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(file().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    std::int64_t out = -1;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    if (sqlite3_step(stmt) == SQLITE_ROW) out = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return out;
  }
  std::int64_t logged_rows(const std::string& room_id) const {
    return query("SELECT count(*) FROM move_log WHERE room_id = '" + room_id + "'");
  }
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
    sqlite3* db = nullptr;
    if (sqlite3_open(file().c_str(), &db) != SQLITE_OK) return "cannot open " + file().string();
    std::string sql;
    for (std::int64_t step = 0; step < version; ++step) sql += std::string(sqlite::migration(step));
    sql += "PRAGMA application_id = " + std::to_string(sqlite::kApplicationId) +
           "; PRAGMA user_version = " + std::to_string(version) + ";" + rows;
    char* error = nullptr;
    std::string out;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      out = error ? error : "sqlite3_exec failed";
      sqlite3_free(error);
    }
    sqlite3_close(db);
    return out;
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

// ---- the move log and archiving ------------------------------------------------------------

TEST_F(SqliteStoreTest, AFinishedGameIsArchivedAsOneRowAndItsLogRowsAreTrimmed) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  const RoomRecord game1 = started(room("r1", "p1"), 1, 11, 0);
  store->save_room(game1, nullptr);
  for (int seq = 1; seq <= 5; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  store->flush();
  EXPECT_EQ(logged_rows("r1"), 5);
  EXPECT_EQ(archived_rows("r1"), 0);
  // A replay of the game in progress reads the log.
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
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0) << "no live game: the whole log goes";
  history = store->load_room("r1");
  ASSERT_TRUE(history);
  EXPECT_TRUE(history->games[0].finished_ms);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3, 4, 5});
  EXPECT_TRUE(store->load().rooms.empty());

  // The rematch logs again; its replay and recovery read the log, game 1's read moves.
  store->save_room(started(room("r1", "p1"), 2, 22, 6), nullptr);
  for (int seq = 7; seq <= 8; ++seq) store->append_move(move("r1", 2, seq), nullptr);
  store->flush();
  EXPECT_EQ(logged_rows("r1"), 2);
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

TEST_F(SqliteStoreTest, AnAbandonedGameIsArchivedAndTheLogKeepsWhatRunningGamesNeed) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  const RoomRecord r1 = started(room("r1", "p1"), 1, 11, 0);
  const RoomRecord r2 = started(room("r2", "p1"), 1, 22, 0);
  store->save_room(r1, nullptr);
  store->save_room(r2, nullptr);
  // Log rows 1-3 r1, 4-5 r2, 6 r1, 7 r2.
  for (int seq = 1; seq <= 3; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  for (int seq = 1; seq <= 2; ++seq) store->append_move(move("r2", 1, seq), nullptr);
  store->append_move(move("r1", 1, 4), nullptr);
  store->append_move(move("r2", 1, 3), nullptr);
  store->save_room(ended(r1, StoredRoomStatus::kAbandoned), nullptr);
  store->flush();
  EXPECT_EQ(archived_rows("r1"), 4);
  EXPECT_EQ(archived_rows("r2"), 0);
  // Trimmed up to r2's first row: r1's rows before it are gone, its row 6 waits for r2.
  EXPECT_EQ(query("SELECT min(id) FROM move_log"), 4);
  EXPECT_EQ(logged_rows("r2"), 3);
  EXPECT_EQ(logged_rows("r1"), 1);
  // An archived game is read from moves only: row 6 is not counted twice.
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
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0);
}

TEST_F(SqliteStoreTest, UnfinishedGamesRecoverFromTheLogAndArchiveAfterReopening) {
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
    // The writer knows the logged games again: a seq the log has is refused...
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
    EXPECT_EQ(logged_rows("r1"), 2) << "rows after r2's first stay until r2 ends";
  }
  auto store = open();
  // Reopened again: r1's leftover log rows belong to an archived game and are ignored.
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
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0);
}

// ---- a torn tail: what a power loss in the middle of a commit leaves ---------------------
//
// Every write reaches the file through SQLite's write-ahead log (parlor.db-wal): a commit
// appends one frame per page it changed (a 24-byte header, then the page) and is acknowledged
// only once they are fsynced. A power loss or a kill in the middle of a commit leaves a torn
// last frame, or bytes of a next commit that never completed. These tests make that file by
// hand (the database and its log copied while the store has them open, as a crash leaves
// them, then cut or extended) and check what the server finds when it starts on it.

class TornLogTest : public SqliteStoreTest {
 protected:
  // Stores room r1 and moves 1..`moves` of its game, each its own acknowledged commit, and
  // leaves a copy of the data directory as a crash at that moment would, in crashed().
  void crash_after_moves(int moves) {
    auto store = open();
    store->save_player(player("p1"), nullptr);
    store->save_room(started(room("r1", "p1"), 1, 11, 0), nullptr);
    store->flush();
    Outcomes acknowledged;
    for (int seq = 1; seq <= moves; ++seq) {
      store->append_move(move("r1", 1, seq), acknowledged.callback());
      store->flush();
    }
    ASSERT_EQ(acknowledged.ok, moves);
    fs::create_directories(crashed());
    fs::copy_file(file(), crashed() / "parlor.db");
    fs::copy_file(file().string() + "-wal", wal());
  }
  fs::path crashed() const { return root_ / "crashed"; }
  fs::path wal() const { return crashed() / "parlor.db-wal"; }
  // The page size the log's header records (bytes 8..11, big-endian).
  std::size_t page_size() const {
    const std::string header = read_bytes(wal()).substr(0, 32);
    std::size_t size = 0;
    for (int i = 8; i < 12; ++i) size = size << 8 | static_cast<unsigned char>(header[i]);
    return size;
  }
  // The server starting on the crashed copy.
  std::unique_ptr<SqliteStore> restart() {
    dir_ = crashed();
    return open();
  }
};

TEST_F(TornLogTest, ATornLastCommitIsLostAndEverythingAcknowledgedBeforeItRecovers) {
  crash_after_moves(5);
  const std::size_t frame = 24 + page_size();
  const std::size_t size = fs::file_size(wal());
  ASSERT_GT(size, 32 + 5 * frame) << "a frame per commit at least";
  // Move 5's commit is the log's last frame: cut it in half, as a power loss in its write.
  fs::resize_file(wal(), size - frame / 2);
  auto store = restart();
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "r1", 1, {1, 2, 3, 4});
  // The room's table replays four moves; the fifth is played again and the log goes on.
  Outcomes outcomes;
  store->append_move(move("r1", 1, 5), outcomes.callback());
  store->append_move(move("r1", 1, 6), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 2);
  EXPECT_EQ(outcomes.failed, 0);
  store.reset();
  expect_moves(open()->load().rooms.at(0).moves, "r1", 1, {1, 2, 3, 4, 5, 6});
}

TEST_F(TornLogTest, BytesOfACommitThatNeverCompletedAreIgnored) {
  crash_after_moves(3);
  // Half of a next commit's frame, its bytes whatever the disk had: a header with no valid
  // checksum and a page of noise after the last complete commit.
  {
    std::ofstream out(wal(), std::ios::binary | std::ios::app);
    std::string noise(24 + page_size() / 2, '\0');
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>(i * 131 + 7);
    out.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
  auto store = restart();
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "r1", 1, {1, 2, 3});
  Outcomes outcomes;
  store->append_move(move("r1", 1, 4), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  store.reset();
  expect_moves(open()->load().rooms.at(0).moves, "r1", 1, {1, 2, 3, 4});
}

TEST_F(SqliteStoreTest, AnIdleGameIsMovedToTheLogsEndSoTheLogStaysSmall) {
  auto with = options();
  with.log_slack = 8;
  const RoomRecord idle = started(room("idle", "p1"), 1, 11, 0);
  {
    SqliteStore store(with);
    store.save_player(player("p1"), nullptr);
    store.save_room(idle, nullptr);
    store.save_room(started(room("busy", "p1"), 1, 22, 0), nullptr);
    for (int seq = 1; seq <= 2; ++seq) store.append_move(move("idle", 1, seq), nullptr);
    store.flush();
    for (int seq = 1; seq <= 20; ++seq) store.append_move(move("busy", 1, seq), nullptr);
    store.flush();
    EXPECT_EQ(query("SELECT count(*) FROM move_log"), 22);
    // busy ends: idle's first row is 20 rows behind the end, more than the slack of 8, so its
    // rows are copied to the end and everything before them goes.
    store.save_room(ended(started(room("busy", "p1"), 1, 22, 0)), nullptr);
    store.flush();
    EXPECT_EQ(query("SELECT count(*) FROM move_log"), 2);
    EXPECT_EQ(query("SELECT min(id) FROM move_log"), 23);
    EXPECT_EQ(archived_rows("busy"), 20);
    const auto state = store.load();
    ASSERT_EQ(state.rooms.size(), 1u);
    expect_moves(state.rooms[0].moves, "idle", 1, {1, 2});
    store.append_move(move("idle", 1, 3), nullptr);
  }
  SqliteStore store(with);
  const auto state = store.load();
  ASSERT_EQ(state.rooms.size(), 1u);
  expect_moves(state.rooms[0].moves, "idle", 1, {1, 2, 3});
  store.save_room(ended(idle), nullptr);
  store.flush();
  EXPECT_EQ(archived_rows("idle"), 3);
  EXPECT_EQ(query("SELECT count(*) FROM move_log"), 0);
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
  // The live game's moves moved to the log; the finished game's stayed.
  EXPECT_EQ(logged_rows("live"), 3);
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

TEST_F(SqliteStoreTest, ABatchIsOneTransactionAndOneFsync) {
  CountingVfs counting;
  auto with = options();
  with.batch_window = std::chrono::milliseconds(5);
  auto store = std::make_unique<SqliteStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
  store->flush();

  constexpr int kMoves = 1000;
  g_syncs = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kMoves / 4; ++i) store->append_move(move("r1", 1, t * 1000 + i), nullptr);
    });
  }
  for (auto& thread : threads) thread.join();
  store->flush();
  const int batched_syncs = g_syncs.load();
  EXPECT_GE(batched_syncs, 1);
  EXPECT_LT(batched_syncs, kMoves / 10) << "1000 appends should take a few dozen fsyncs at most";
  EXPECT_LE(static_cast<std::uint64_t>(batched_syncs), store->stats().batches + 2);
  store.reset();

  // Without grouping every write is its own transaction and its own fsync.
  with.batch_window = std::chrono::microseconds(0);
  with.max_batch = 1;
  store = std::make_unique<SqliteStore>(with);
  g_syncs = 0;
  for (int i = 0; i < 100; ++i) store->append_move(move("r1", 1, 10'000 + i), nullptr);
  store->flush();
  EXPECT_GE(g_syncs.load(), 100);
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
