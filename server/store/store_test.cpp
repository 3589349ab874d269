// The Store interface's behaviour, run against every backend: SQLite (a file in a temporary
// directory) and PostgreSQL (a fresh database on the binary's test server). Backend
// internals — SQLite's move log, locking and file damage; PostgreSQL's connection errors —
// are tested in sqlite_store_test.cpp and postgres_store_test.cpp.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <thread>

#include "server/store/postgres_store.h"
#include "server/store/redo_log.h"
#include "server/store/redo_records.h"
#include "server/store/sqlite_store.h"
#include "server/store/store_test_records.h"
#include "server/store/testing/postgres_environment.h"

namespace parlor::server {
namespace {

using namespace store_test;
namespace fs = std::filesystem;

enum class Backend { kSqlite, kPostgres };

std::string_view name(Backend backend) {
  return backend == Backend::kSqlite ? "sqlite" : "postgres";
}
// How GoogleTest shows the parameter.
void PrintTo(Backend backend, std::ostream* out) { *out << name(backend); }

// Group commit settings a test may change.
struct Tuning {
  std::chrono::microseconds batch_window{500};
  std::size_t max_batch = 512;
};

class StoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      std::string pattern = (fs::temp_directory_path() / "parlor-store-XXXXXX").string();
      ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
      root_ = pattern;
      return;
    }
    std::string skip;
    testing::PostgresServer* server = nullptr;
    try {
      server = testing::PostgresEnvironment::server(skip);
    } catch (const std::exception& e) {
      FAIL() << e.what();
    }
    if (!server) GTEST_SKIP() << skip;
    url_ = testing::PostgresEnvironment::fresh_database(*server);
  }
  void TearDown() override {
    if (root_.empty()) return;
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  std::unique_ptr<Store> open(Tuning tuning = {}) const {
    const auto log = [this](std::string_view message) {
      std::lock_guard lock(log_mutex_);
      logged_.emplace_back(message);
    };
    if (GetParam() == Backend::kSqlite) {
      SqliteStoreOptions options;
      options.data_dir = root_ / "data";
      options.batch_window = tuning.batch_window;
      options.max_batch = tuning.max_batch;
      options.log_error = log;
      return std::make_unique<SqliteStore>(options);
    }
    PostgresStoreOptions options;
    options.url = url_;
    options.batch_window = tuning.batch_window;
    options.max_batch = tuning.max_batch;
    options.log_error = log;
    return std::make_unique<PostgresStore>(options);
  }

  static void close(Store& store) {
    if (auto* sqlite = dynamic_cast<SqliteStore*>(&store)) return sqlite->close();
    dynamic_cast<PostgresStore&>(store).close();
  }

  // The first column of the first row of `sql` as an integer, on a connection of its own
  // (like another process): -1 when there is none.
  std::int64_t query(const std::string& sql) const {
    std::int64_t out = -1;
    if (GetParam() == Backend::kSqlite) {
      sqlite3* db = nullptr;
      const std::string file = (root_ / "data" / "parlor.db").string();
      EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
      sqlite3_stmt* stmt = nullptr;
      EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
      if (sqlite3_step(stmt) == SQLITE_ROW) out = sqlite3_column_int64(stmt, 0);
      sqlite3_finalize(stmt);
      sqlite3_close(db);
      return out;
    }
    PGconn* conn = PQconnectdb(url_.c_str());
    EXPECT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    PGresult* result = PQexec(conn, sql.c_str());
    EXPECT_EQ(PQresultStatus(result), PGRES_TUPLES_OK) << sql << ": " << PQerrorMessage(conn);
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0) {
      out = std::stoll(PQgetvalue(result, 0, 0));
    }
    PQclear(result);
    PQfinish(conn);
    return out;
  }

  // How many stored moves have this seq: in SQLite a live game's moves are in the redo log
  // (README.md beside this file) until the game is archived, packed into one row of
  // packed_moves; PostgreSQL has only `moves`.
  std::int64_t stored_moves_with_seq(std::int64_t seq) const {
    const std::string n = std::to_string(seq);
    const std::string in_moves = "(SELECT count(*) FROM moves WHERE seq = " + n + ")";
    if (GetParam() == Backend::kPostgres) return query("SELECT " + in_moves);
    const auto generation = static_cast<std::uint64_t>(query("SELECT generation FROM redo_state"));
    const std::string redo =
        (root_ / "data" / "parlor.db").string() + ".redo-" + std::to_string(generation % 2);
    std::int64_t in_redo_log = 0;
    for (const auto& frame : RedoLog(redo).read(generation)) {
      for (const auto& write : decode_writes(frame.payload)) {
        const auto* logged = std::get_if<MoveRecord>(&write);
        if (logged != nullptr && logged->seq == seq) ++in_redo_log;
      }
    }
    return in_redo_log + query("SELECT " + in_moves +
                               " + (SELECT count(*) FROM packed_moves AS p, json_each(p.moves) AS e"
                               " WHERE json_extract(e.value, '$[0]') = " +
                               n + ")");
  }
  // How many moves of this room are archived: `moves` (PostgreSQL), or SQLite's packed rows.
  std::int64_t archived_moves_of(const std::string& room_id) const {
    const std::string in_moves = "(SELECT count(*) FROM moves WHERE room_id = '" + room_id + "')";
    if (GetParam() == Backend::kPostgres) return query("SELECT " + in_moves);
    return query("SELECT " + in_moves +
                 " + (SELECT coalesce(sum(json_array_length(moves)), 0) FROM packed_moves"
                 " WHERE room_id = '" +
                 room_id + "')");
  }

  std::vector<std::string> logged() const {
    std::lock_guard lock(log_mutex_);
    return logged_;
  }

  fs::path root_;    // SQLite: the temporary directory holding data/
  std::string url_;  // PostgreSQL: this test's database
  mutable std::mutex log_mutex_;
  mutable std::vector<std::string> logged_;
};

// ---- round trips ---------------------------------------------------------------------------

TEST_P(StoreTest, RoundTripsPlayersRoomsAndMovesAcrossReopen) {
  const std::uint64_t big_seed = 0xF123'4567'89AB'CDEFULL;  // above INT64_MAX
  Outcomes outcomes;
  {
    auto store = open();
    store->save_player(player("p1"), outcomes.callback());
    store->save_player(player("p2", 9), outcomes.callback());
    store->save_room(room("r1", "p1"), outcomes.callback());
    store->save_room(started(room("r1", "p1"), 1, big_seed, 0), outcomes.callback());
    for (int seq = 1; seq <= 5; ++seq)
      store->append_move(move("r1", 1, seq, seq % 4), outcomes.callback());
    store->flush();
    EXPECT_EQ(outcomes.ok, 9);
  }
  auto store = open();
  const LoadedState state = store->load();
  ASSERT_EQ(state.players.size(), 2u);
  EXPECT_EQ(state.players[0].id, "p1");
  EXPECT_EQ(state.players[0].name, "Name p1");
  EXPECT_EQ(state.players[0].token_hash, player("p1").token_hash);
  EXPECT_EQ(state.players[0].created_ms, 1'700'000'000'000);
  EXPECT_EQ(state.players[1].token_hash, player("p2", 9).token_hash);

  ASSERT_EQ(state.rooms.size(), 1u);
  const RoomRecord& r = state.rooms[0].room;
  const RoomRecord expected = started(room("r1", "p1"), 1, big_seed, 0);
  EXPECT_EQ(r.id, "r1");
  EXPECT_EQ(r.kind, "hearts");
  EXPECT_EQ(r.seats, 4);
  EXPECT_EQ(r.game_options, expected.game_options);
  EXPECT_EQ(r.room_options, expected.room_options);
  EXPECT_EQ(r.creator_id, "p1");
  EXPECT_EQ(r.status, StoredRoomStatus::kPlaying);
  EXPECT_EQ(r.seed, big_seed);
  EXPECT_EQ(r.game_number, 1);
  EXPECT_EQ(r.start_seq, 0);
  EXPECT_EQ(r.created_ms, expected.created_ms);
  EXPECT_EQ(r.game_started_ms, expected.game_started_ms);
  EXPECT_FALSE(r.finished_ms);
  ASSERT_EQ(r.occupants.size(), 4u);
  ASSERT_TRUE(r.occupants[0]);
  EXPECT_EQ(r.occupants[0]->player_id, "p1");
  EXPECT_EQ(r.occupants[0]->name, "Name p1");
  EXPECT_FALSE(r.occupants[0]->bot);
  EXPECT_FALSE(r.occupants[1]);
  ASSERT_TRUE(r.occupants[2]);
  EXPECT_FALSE(r.occupants[2]->player_id);
  EXPECT_EQ(r.occupants[2]->bot, "greedy");
  EXPECT_FALSE(r.occupants[3]);

  const auto& moves = state.rooms[0].moves;
  ASSERT_EQ(moves.size(), 5u);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const MoveRecord want =
        move("r1", 1, static_cast<std::int64_t>(i + 1), static_cast<int>((i + 1) % 4));
    EXPECT_EQ(moves[i].seq, want.seq);
    EXPECT_EQ(moves[i].seat, want.seat);
    EXPECT_EQ(moves[i].move, want.move);
    EXPECT_EQ(moves[i].at_ms, want.at_ms);
    EXPECT_EQ(moves[i].state_hash, want.state_hash);
    EXPECT_EQ(moves[i].room_id, "r1");
    EXPECT_EQ(moves[i].game_number, 1);
  }
}

TEST_P(StoreTest, LoadReturnsUnfinishedRoomsWithTheCurrentGamesMovesInOrder) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  // r1: game 1 finished, then a rematch (game 2, seq continues) in progress.
  store->save_room(started(room("r1", "p1"), 1, 11, 0), nullptr);
  for (int seq = 1; seq <= 3; ++seq) store->append_move(move("r1", 1, seq), nullptr);
  RoomRecord finished = started(room("r1", "p1"), 1, 11, 0);
  finished.status = StoredRoomStatus::kFinished;
  finished.finished_ms = 1'700'000'009'000;
  store->save_room(finished, nullptr);
  store->save_room(started(room("r1", "p1"), 2, 22, 4), nullptr);
  // Appended out of seq order; loading sorts by seq.
  for (int seq : {7, 5, 6}) store->append_move(move("r1", 2, seq), nullptr);
  // r2 waiting, r3 finished, r4 abandoned.
  store->save_room(room("r2", "p1"), nullptr);
  RoomRecord r3 = started(room("r3", "p1"), 1, 33, 0);
  store->save_room(r3, nullptr);
  store->append_move(move("r3", 1, 1), nullptr);
  r3.status = StoredRoomStatus::kFinished;
  r3.finished_ms = 1'700'000'010'000;
  store->save_room(r3, nullptr);
  RoomRecord r4 = started(room("r4", "p1"), 1, 44, 0);
  r4.status = StoredRoomStatus::kAbandoned;
  store->save_room(r4, nullptr);
  close(*store);

  store = open();
  const LoadedState state = store->load();
  ASSERT_EQ(state.rooms.size(), 2u);
  std::map<std::string, LoadedRoom> by_id;
  for (const auto& loaded : state.rooms) by_id[loaded.room.id] = loaded;
  ASSERT_TRUE(by_id.contains("r1"));
  ASSERT_TRUE(by_id.contains("r2"));
  const LoadedRoom& r1 = by_id["r1"];
  EXPECT_EQ(r1.room.game_number, 2);
  EXPECT_EQ(r1.room.seed, 22u);
  EXPECT_EQ(r1.room.start_seq, 4);
  ASSERT_EQ(r1.moves.size(), 3u);
  EXPECT_EQ(r1.moves[0].seq, 5);
  EXPECT_EQ(r1.moves[1].seq, 6);
  EXPECT_EQ(r1.moves[2].seq, 7);
  EXPECT_EQ(by_id["r2"].room.status, StoredRoomStatus::kWaiting);
  EXPECT_EQ(by_id["r2"].room.game_number, 0);
  EXPECT_TRUE(by_id["r2"].moves.empty());

  // Replays: every game of a room, finished or not; updating the room kept game 1's moves.
  const auto history = store->load_room("r1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->games.size(), 2u);
  EXPECT_EQ(history->games[0].seed, 11u);
  EXPECT_EQ(history->games[0].finished_ms, 1'700'000'009'000);
  expect_moves(history->games[0].moves, "r1", 1, {1, 2, 3});
  EXPECT_EQ(history->games[1].seed, 22u);
  EXPECT_FALSE(history->games[1].finished_ms);
  expect_moves(history->games[1].moves, "r1", 2, {5, 6, 7});
  const auto r3_history = store->load_room("r3");
  ASSERT_TRUE(r3_history);
  EXPECT_EQ(r3_history->room.status, StoredRoomStatus::kFinished);
  EXPECT_EQ(r3_history->games.at(0).moves.size(), 1u);
  const auto r4_history = store->load_room("r4");
  ASSERT_TRUE(r4_history);
  EXPECT_EQ(r4_history->room.status, StoredRoomStatus::kAbandoned);
  EXPECT_FALSE(store->load_room("nope"));
}

TEST_P(StoreTest, RoomsEndedBeforeTheRetentionCutoffAreDeletedWithTheirGamesAndMoves) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  // Finished at 1'700'000'009'001 (ended()): before the cutoff below.
  const RoomRecord old_game = started(room("old", "p1"), 1, 11, 0);
  store->save_room(old_game, nullptr);
  for (int seq = 1; seq <= 3; ++seq) store->append_move(move("old", 1, seq), nullptr);
  store->save_room(ended(old_game), nullptr);
  // Finished after the cutoff.
  RoomRecord recent = ended(started(room("recent", "p1"), 1, 12, 0));
  recent.finished_ms = 1'800'000'000'000;
  store->save_room(recent, nullptr);
  // Abandoned: its last game started before the cutoff, then again one started after it.
  store->save_room(ended(started(room("gone", "p1"), 1, 13, 0), StoredRoomStatus::kAbandoned),
                   nullptr);
  RoomRecord abandoned_late =
      ended(started(room("late", "p1"), 1, 14, 0), StoredRoomStatus::kAbandoned);
  abandoned_late.game_started_ms = 1'800'000'000'000;
  store->save_room(abandoned_late, nullptr);
  // Still playing or waiting, however old: never pruned.
  const RoomRecord playing = started(room("playing", "p1"), 1, 15, 0);
  store->save_room(playing, nullptr);
  store->append_move(move("playing", 1, 1), nullptr);
  store->save_room(room("waiting", "p1"), nullptr);
  store->flush();
  ASSERT_EQ(archived_moves_of("old"), 3);

  store->prune_ended_rooms(1'750'000'000'000);
  store->flush();
  EXPECT_FALSE(store->load_room("old"));
  EXPECT_FALSE(store->load_room("gone"));
  EXPECT_EQ(archived_moves_of("old"), 0) << "the moves go with their room";
  EXPECT_EQ(query("SELECT count(*) FROM games WHERE room_id IN ('old', 'gone')"), 0);
  EXPECT_EQ(query("SELECT count(*) FROM room_seats WHERE room_id IN ('old', 'gone')"), 0);
  EXPECT_TRUE(store->load_room("recent"));
  EXPECT_TRUE(store->load_room("late"));
  EXPECT_TRUE(store->load_room("waiting"));
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 2u) << "playing and waiting rooms recover as before";
  ASSERT_EQ(state.players.size(), 1u) << "players are kept";
}

// ---- player retention ----------------------------------------------------------------------

PlayerRecord seen_at(PlayerRecord record, UnixMillis last_seen_ms) {
  record.last_seen_ms = last_seen_ms;
  return record;
}

std::set<std::string> player_ids(const LoadedState& state) {
  std::set<std::string> ids;
  for (const PlayerRecord& p : state.players) ids.insert(p.id);
  return ids;
}

TEST_P(StoreTest, PlayersIdleBeforeTheCutoffWhoLeftNothingBehindAreDeleted) {
  auto store = open();
  store->save_player(seen_at(player("idle"), 100), nullptr);
  store->save_player(seen_at(player("recent"), 5000), nullptr);
  store->save_player(seen_at(player("seated"), 100), nullptr);
  store->save_player(seen_at(player("creator"), 100), nullptr);
  store->save_player(seen_at(player("rated"), 100), nullptr);
  // A last-seen time never goes back: a late write of an older one changes nothing.
  store->save_player(seen_at(player("back"), 5000), nullptr);
  store->save_player(seen_at(player("back"), 100), nullptr);
  // "seated" sits in a room that "creator" created and left.
  RoomRecord waiting = room("waiting", "creator");
  waiting.occupants[0] = SeatRecord{"seated", "Name seated", std::nullopt};
  store->save_room(waiting, nullptr);
  store->record_rated_game(rated_game("r", 1, {"rated", "bot:greedy"}, {0, 1}, {0, 1}), nullptr);
  store->flush();
  ASSERT_EQ(query("SELECT last_seen_ms FROM players WHERE id = 'back'"), 5000);

  store->prune_idle_players(1000);
  store->flush();
  EXPECT_EQ(player_ids(store->load()),
            (std::set<std::string>{"back", "creator", "rated", "recent", "seated"}));
  EXPECT_TRUE(logged().empty()) << logged().front();

  // Once the room's replay is pruned, the players it kept go at the next prune.
  store->save_room(ended(started(waiting, 1, 5, 0)), nullptr);
  store->prune_ended_rooms(1'750'000'000'000);
  store->prune_idle_players(1000);
  store->flush();
  EXPECT_EQ(player_ids(store->load()), (std::set<std::string>{"back", "rated", "recent"}));
  EXPECT_EQ(query("SELECT count(*) FROM ratings WHERE player_id = 'rated'"), 1)
      << "a rated player keeps its rating and its row";
}

TEST_P(StoreTest, TheLastSeenTimeRoundTripsAcrossReopen) {
  {
    auto store = open();
    store->save_player(seen_at(player("p1"), 1'700'000'123'456), nullptr);
    store->flush();
    close(*store);
  }
  auto store = open();
  const auto state = store->load();
  ASSERT_EQ(state.players.size(), 1u);
  EXPECT_EQ(state.players[0].last_seen_ms, 1'700'000'123'456);
  EXPECT_EQ(state.players[0].created_ms, 1'700'000'000'000);
}

// Moves whose JSON holds quotes, backslashes, braces, commas and non-ASCII text, written
// together in one batch, come back as they were.
TEST_P(StoreTest, MovesWithAnyTextComeBackAsWritten) {
  auto store = open({std::chrono::milliseconds(50), 512});
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
  const std::vector<nlohmann::json> texts = {
      {{"say", "a \"quoted\" word"}},
      {{"say", "back\\slash {brace}, comma"}},
      {{"say", "NULL"}, {"n", nullptr}},
      {{"say", "\u00e9t\u00e9 \U0001F0A1"}, {"list", {1, "two", 3.5}}},
      {{"say", "\x01 control"}},
  };
  Outcomes outcomes;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    MoveRecord m = move("r1", 1, static_cast<std::int64_t>(i + 1));
    m.move = texts[i];
    store->append_move(m, outcomes.callback());
  }
  store->flush();
  EXPECT_EQ(outcomes.ok, static_cast<int>(texts.size()));
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), 1u);
  ASSERT_EQ(state.rooms[0].moves.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(state.rooms[0].moves[i].move, texts[i]) << i;
    EXPECT_EQ(state.rooms[0].moves[i].state_hash,
              move("r1", 1, static_cast<std::int64_t>(i + 1)).state_hash);
  }
}

TEST_P(StoreTest, SavingARoomAgainReplacesItsSeats) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  store->save_player(player("p2"), nullptr);
  RoomRecord r = room("r1", "p1");
  store->save_room(r, nullptr);
  r.occupants[0].reset();
  r.occupants[1] = SeatRecord{"p2", "Name p2", std::nullopt};
  store->save_room(r, nullptr);
  store->flush();
  const auto loaded = store->load();
  ASSERT_EQ(loaded.rooms.size(), 1u);
  const auto& occupants = loaded.rooms[0].room.occupants;
  EXPECT_FALSE(occupants[0]);
  ASSERT_TRUE(occupants[1]);
  EXPECT_EQ(occupants[1]->player_id, "p2");
  ASSERT_TRUE(occupants[2]);
  EXPECT_EQ(occupants[2]->bot, "greedy");
  EXPECT_FALSE(occupants[3]);

  // A seat's player renamed, a bot's strategy changed, a player's seat handed to a bot, then
  // the same seats saved again (as every game's start and end saves them): each seat reads
  // back as last saved.
  r.occupants[1]->name = "P2 renamed";
  r.occupants[2]->bot = "ismcts";
  r.occupants[3] = SeatRecord{"p1", "Name p1", std::nullopt};
  store->save_room(r, nullptr);
  r.occupants[3] = SeatRecord{std::nullopt, "Name p1", "greedy"};
  store->save_room(r, nullptr);
  store->save_room(r, nullptr);
  store->flush();
  const auto again = store->load();
  ASSERT_EQ(again.rooms.size(), 1u);
  const auto& seats = again.rooms[0].room.occupants;
  EXPECT_FALSE(seats[0]);
  ASSERT_TRUE(seats[1]);
  EXPECT_EQ(seats[1]->player_id, "p2");
  EXPECT_EQ(seats[1]->name, "P2 renamed");
  ASSERT_TRUE(seats[2]);
  EXPECT_EQ(seats[2]->bot, "ismcts");
  ASSERT_TRUE(seats[3]);
  EXPECT_FALSE(seats[3]->player_id);
  EXPECT_EQ(seats[3]->name, "Name p1");
  EXPECT_EQ(seats[3]->bot, "greedy");
}

// ---- write-ahead and group commit ----------------------------------------------------------

TEST_P(StoreTest, OnDurableRunsOnlyOnceTheMoveIsCommitted) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 1, 0), nullptr);
  // Another connection, like a fresh process after a crash, must already see the move.
  std::vector<std::int64_t> seen;
  std::mutex mutex;
  for (int seq = 1; seq <= 5; ++seq) {
    store->append_move(move("r1", 1, seq), [&, seq](WriteResult result) {
      EXPECT_EQ(result, WriteResult::kDurable);
      const std::int64_t count = stored_moves_with_seq(seq);
      std::lock_guard lock(mutex);
      seen.push_back(count);
    });
  }
  store->flush();
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 1, 1, 1, 1}));
}

TEST_P(StoreTest, ManyThreadsEveryCallbackOnceInOrderPerRoom) {
  constexpr int kThreads = 4;
  constexpr int kMoves = 250;
  auto store = open();
  for (int t = 0; t < kThreads; ++t) {
    const std::string id = "r" + std::to_string(t);
    store->save_player(player("p" + std::to_string(t)), nullptr);
    store->save_room(started(room(id, "p" + std::to_string(t)), 1, 5, 0), nullptr);
  }
  store->flush();
  std::mutex mutex;
  std::map<std::string, std::vector<std::int64_t>> acknowledged;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string id = "r" + std::to_string(t);
      for (int seq = 1; seq <= kMoves; ++seq) {
        store->append_move(move(id, 1, seq), [&, id, seq](WriteResult result) {
          if (result != WriteResult::kDurable) failures.fetch_add(1);
          std::lock_guard lock(mutex);
          acknowledged[id].push_back(seq);
        });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  store->flush();
  EXPECT_EQ(failures, 0);
  for (int t = 0; t < kThreads; ++t) {
    const auto& seqs = acknowledged["r" + std::to_string(t)];
    ASSERT_EQ(seqs.size(), static_cast<std::size_t>(kMoves));
    for (int i = 0; i < kMoves; ++i) EXPECT_EQ(seqs[static_cast<std::size_t>(i)], i + 1);
  }
  const StoreStats stats = store->stats();
  EXPECT_EQ(stats.records, static_cast<std::uint64_t>(kThreads * (kMoves + 2)));
  EXPECT_LT(stats.batches, static_cast<std::uint64_t>(kThreads * kMoves / 4));
  EXPECT_GT(stats.largest_batch, 1u);
  EXPECT_EQ(stats.queued, 0u);
  close(*store);

  // Every acknowledged move is there after a reopen.
  store = open();
  const auto state = store->load();
  ASSERT_EQ(state.rooms.size(), static_cast<std::size_t>(kThreads));
  for (const auto& loaded : state.rooms)
    EXPECT_EQ(loaded.moves.size(), static_cast<std::size_t>(kMoves));
}

// All in one batch (a long window): the refused writes fail alone, the others commit.
TEST_P(StoreTest, AFailedMoveIsReportedAndLaterMovesOfThatGameAreRefused) {
  auto store = open({std::chrono::milliseconds(200), 512});
  Outcomes outcomes;
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
  store->save_room(started(room("r2", "p1"), 1, 5, 0), nullptr);
  store->append_move(move("r1", 1, 1), outcomes.callback());
  store->append_move(move("r1", 1, 1), outcomes.callback());       // duplicate seq: refused
  store->append_move(move("r1", 1, 2), outcomes.callback());       // after a gap: refused
  store->append_move(move("r2", 1, 1), outcomes.callback());       // another room is unaffected
  store->append_move(move("nowhere", 1, 1), outcomes.callback());  // no such room
  store->append_move(move("r2", 1, 2), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 3);
  EXPECT_EQ(outcomes.failed, 3);
  EXPECT_EQ(store->stats().failed_records, 3u);
  EXPECT_EQ(store->stats().batches, 1u) << "the batch committed once, without the refused writes";
  const auto messages = logged();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages[0].find("room r1 game 1 move seq 1 was not stored"), std::string::npos)
      << messages[0];
  // What was acknowledged is stored, and nothing else.
  const auto state = store->load();
  std::map<std::string, std::vector<MoveRecord>> moves;
  for (const auto& loaded : state.rooms) moves[loaded.room.id] = loaded.moves;
  expect_moves(moves["r1"], "r1", 1, {1});
  expect_moves(moves["r2"], "r2", 1, {1, 2});
  // The game stays refused: a later batch does not fill the gap either.
  Outcomes later;
  store->append_move(move("r1", 1, 3), later.callback());
  store->flush();
  EXPECT_EQ(later.failed, 1);
}

TEST_P(StoreTest, ARoomWithAnUnknownPlayerIsRefusedNotHalfWritten) {
  auto store = open();
  Outcomes outcomes;
  store->save_room(room("r1", "ghost"), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.failed, 1);
  EXPECT_TRUE(store->load().rooms.empty());
  EXPECT_FALSE(store->load_room("r1"));
  EXPECT_EQ(query("SELECT count(*) FROM room_seats"), 0);
}

TEST_P(StoreTest, ARoomWithMoreOccupantsThanSeatsIsRefused) {
  auto store = open();
  Outcomes outcomes;
  store->save_player(player("p1"), outcomes.callback());
  RoomRecord r = room("r1", "p1");
  r.seats = 2;
  store->save_room(r, outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  EXPECT_EQ(outcomes.failed, 1);
  EXPECT_FALSE(store->load_room("r1"));
}

// What the schema's checks refuse, every backend refuses before acknowledging (SQLite's records
// reach its file after the acknowledgement, so its store checks them itself).
TEST_P(StoreTest, ARoomOfNoSeatsOrANegativeGameIsRefused) {
  auto store = open();
  Outcomes outcomes;
  store->save_player(player("p1"), outcomes.callback());
  RoomRecord no_seats = room("r1", "p1");
  no_seats.seats = 0;
  no_seats.occupants.clear();
  store->save_room(no_seats, outcomes.callback());
  RoomRecord negative = room("r2", "p1");
  negative.game_number = -1;
  store->save_room(negative, outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  EXPECT_EQ(outcomes.failed, 2);
  EXPECT_FALSE(store->load_room("r1"));
  EXPECT_FALSE(store->load_room("r2"));
}

TEST_P(StoreTest, WritesAfterCloseFailAtOnce) {
  auto store = open();
  close(*store);
  Outcomes outcomes;
  store->save_player(player("p1"), outcomes.callback());
  EXPECT_EQ(outcomes.failed, 1);
  store->flush();  // returns
}

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return std::string(name(info.param));
}

// ---- rated games -----------------------------------------------------------------------------

TEST_P(StoreTest, ARatedGameIsRatedOnceAndKeptWithEveryonesRatingBeforeAndAfter) {
  Outcomes outcomes;
  {
    auto store = open();
    store->record_rated_game(rated_game("r1", 1, {"p1", "p2"}, {0, 1}, {0, 1}),
                             outcomes.callback());
    // A recovery replaying the game's end records it again: nothing changes.
    store->record_rated_game(rated_game("r1", 1, {"p1", "p2"}, {0, 1}, {1, 0}),
                             outcomes.callback());
    store->record_rated_game(rated_game("r1", 2, {"p1", "p2"}, {0, 1}, {0, 1}),
                             outcomes.callback());
    store->flush();
    EXPECT_EQ(outcomes.ok, 3);
    EXPECT_EQ(outcomes.failed, 0);
  }
  auto store = open();
  EXPECT_EQ(query("SELECT count(*) FROM rated_games"), 2);
  EXPECT_EQ(query("SELECT count(*) FROM rated_seats"), 4);
  const auto board = store->load_leaderboard("agram", 10);
  ASSERT_EQ(board.size(), 2u);
  EXPECT_EQ(board[0].player_id, "p1");
  EXPECT_EQ(board[0].name, "Name p1");
  EXPECT_EQ(board[0].games, 2);
  EXPECT_GT(board[0].rating.rating, 1500);
  EXPECT_LT(board[1].rating.rating, 1500);
  // Two wins between newcomers, by Glicko-2 itself.
  const ratings::Glicko2Game first{ratings::Rating{}, 1};
  const ratings::Rating once = ratings::glicko2_update(ratings::Rating{}, std::span(&first, 1));
  const ratings::Rating loser_once = ratings::glicko2_update(
      ratings::Rating{}, std::vector<ratings::Glicko2Game>{{ratings::Rating{}, 0}});
  const ratings::Glicko2Game second{loser_once, 1};
  EXPECT_NEAR(board[0].rating.rating, ratings::glicko2_update(once, std::span(&second, 1)).rating,
              1e-9);
  EXPECT_EQ(store->load_leaderboard("agram", 1).size(), 1u);
  EXPECT_TRUE(store->load_leaderboard("spades", 10).empty());

  const auto p1 = store->load_player_ratings("p1", 10);
  ASSERT_TRUE(p1);
  EXPECT_EQ(p1->name, "Name p1");
  ASSERT_EQ(p1->ratings.size(), 1u);
  EXPECT_EQ(p1->ratings[0].kind, "agram");
  ASSERT_EQ(p1->games.size(), 2u);
  EXPECT_EQ(p1->games[0].game_number, 2);  // the latest first
  EXPECT_EQ(p1->games[0].system, "glicko2");
  EXPECT_EQ(p1->games[0].rank, 0);
  EXPECT_EQ(p1->games[0].sides, 2);
  EXPECT_NEAR(p1->games[1].before.rating, 1500, 1e-9);
  EXPECT_NEAR(p1->games[1].after.rating, once.rating, 1e-9);
  EXPECT_NEAR(p1->games[0].before.rating, p1->games[1].after.rating, 1e-9);
  EXPECT_NEAR(p1->games[0].after.rating, p1->ratings[0].rating.rating, 1e-9);
  EXPECT_EQ(store->load_player_ratings("p1", 1)->games.size(), 1u);
  EXPECT_FALSE(store->load_player_ratings("nobody", 10));
}

TEST_P(StoreTest, FreeForAllUsesWengLinAndAnIdentityInSeveralSeatsCountsOneGame) {
  auto store = open();
  Outcomes outcomes;
  store->record_rated_game(rated_game("ffa", 1, {"p1", "bot:greedy", "bot:greedy", "p2"},
                                      {0, 1, 2, 3}, {0, 1, 2, 3}, "bigtwo"),
                           outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.ok, 1);
  const auto board = store->load_leaderboard("bigtwo", 10);
  ASSERT_EQ(board.size(), 3u);
  EXPECT_EQ(board[0].player_id, "p1");
  EXPECT_EQ(board[2].player_id, "p2");
  const auto bot = store->load_player_ratings("bot:greedy", 10);
  ASSERT_TRUE(bot);
  ASSERT_EQ(bot->ratings.size(), 1u);
  EXPECT_EQ(bot->ratings[0].games, 1);
  ASSERT_EQ(bot->games.size(), 2u);  // one row per seat it held
  EXPECT_EQ(bot->games[0].system, "weng-lin");
  // Places 1 and 2 of four equals: the mean of their changes, which cancel.
  EXPECT_NEAR(bot->ratings[0].rating.rating, 1500, 1e-9);
}

TEST_P(StoreTest, ARatedGameWithASeatOnNoSideIsRefusedAndChangesNothing) {
  auto store = open();
  Outcomes outcomes;
  store->record_rated_game(rated_game("bad", 1, {"p1", "p2"}, {0, 5}, {0, 1}), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.failed, 1);
  EXPECT_EQ(query("SELECT count(*) FROM rated_games"), 0);
  EXPECT_EQ(query("SELECT count(*) FROM ratings"), 0);
}

// Two cluster nodes rate games of the same player at once: every game counts, each from the
// rating the one before it left (row locks in one transaction), none lost.
TEST_P(StoreTest, TwoNodesRatingTheSamePlayerAtOnceLoseNoUpdate) {
  if (GetParam() != Backend::kPostgres) GTEST_SKIP() << "one SQLite writer per file";
  PostgresStoreOptions options;
  options.url = url_;
  options.exclusive = false;
  options.batch_window = std::chrono::microseconds(0);
  PostgresStore a(options);
  PostgresStore b(options);
  constexpr int kGames = 12;
  Outcomes outcomes;
  std::thread first([&] {
    for (int n = 1; n <= kGames; ++n) {
      a.record_rated_game(rated_game("a", n, {"star", "x"}, {0, 1}, {0, 1}), outcomes.callback());
    }
    a.flush();
  });
  std::thread second([&] {
    for (int n = 1; n <= kGames; ++n) {
      b.record_rated_game(rated_game("b", n, {"y", "star"}, {0, 1}, {1, 0}), outcomes.callback());
    }
    b.flush();
  });
  first.join();
  second.join();
  EXPECT_EQ(outcomes.ok, 2 * kGames);
  const auto star = a.load_player_ratings("star", 100);
  ASSERT_TRUE(star);
  EXPECT_EQ(star->ratings[0].games, 2 * kGames);
  ASSERT_EQ(star->games.size(), static_cast<std::size_t>(2 * kGames));
  // Chained: sorted by rating before, each game started from another's rating after, and the
  // last one's is the rating now.
  std::multiset<double> afters;
  for (const auto& game : star->games) afters.insert(game.after.rating);
  int unmatched = 0;
  for (const auto& game : star->games) {
    if (std::abs(game.before.rating - 1500) < 1e-9) continue;
    const auto it = afters.find(game.before.rating);
    if (it == afters.end()) {
      ++unmatched;
    } else {
      afters.erase(it);
    }
  }
  EXPECT_EQ(unmatched, 0);
  ASSERT_EQ(afters.size(), 1u);
  EXPECT_DOUBLE_EQ(*afters.begin(), star->ratings[0].rating.rating);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), backend_name);

}  // namespace
}  // namespace parlor::server
