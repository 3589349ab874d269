// PostgreSQL's own behaviour: clear errors at open (unreachable server, wrong credentials,
// missing database, a foreign or newer database), the schema, one server per database,
// transactions per batch, and a lost connection. Every test takes a fresh database on the
// binary's test server (testing/postgres_environment.h). What every backend must do is in
// store_test.cpp.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <thread>

#include "server/store/postgres_schema.h"
#include "server/store/postgres_store.h"
#include "server/store/store_test_records.h"
#include "server/store/testing/postgres_environment.h"

namespace parlor::server {
namespace {

using namespace store_test;
using testing::PostgresServer;

TEST(PostgresUrlTest, ThePasswordIsRedactedWhereverItIs) {
  EXPECT_EQ(redact_store_url("postgres://parlor:s3cret@db.example:5433/parlor"),
            "postgres://parlor:***@db.example:5433/parlor");
  EXPECT_EQ(redact_store_url("postgresql://u:p%40ss@h/db?sslmode=require"),
            "postgresql://u:***@h/db?sslmode=require");
  EXPECT_EQ(redact_store_url("postgres://u:a:b@c@h/db"), "postgres://u:***@h/db");
  EXPECT_EQ(redact_store_url("postgres://h/db?user=u&password=s3cret&sslmode=require"),
            "postgres://h/db?user=u&password=***&sslmode=require");
  EXPECT_EQ(redact_store_url("postgres://u@h:5432/db"), "postgres://u@h:5432/db");
  EXPECT_EQ(redact_store_url("postgres://h/db"), "postgres://h/db");
  EXPECT_TRUE(is_postgres_url("postgres://h/db"));
  EXPECT_TRUE(is_postgres_url("postgresql://h/db"));
  EXPECT_FALSE(is_postgres_url("sqlite"));
  EXPECT_FALSE(is_postgres_url("mysql://h/db"));
}

TEST(PostgresUrlTest, TheTargetNamesTheDatabaseAndServer) {
  EXPECT_EQ(pg::describe_target("postgres://u:pw@db.example:5433/parlor"),
            "database \"parlor\" on PostgreSQL server db.example:5433");
  EXPECT_EQ(pg::describe_target("postgresql://u:pw@10.0.0.7/games"),
            "database \"games\" on PostgreSQL server 10.0.0.7:5432");
}

// A port on 127.0.0.1 nobody listens on (the kernel just handed it out and it was closed).
int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string skip;
    try {
      server_ = testing::PostgresEnvironment::server(skip);
    } catch (const std::exception& e) {
      FAIL() << e.what();
    }
    if (!server_) GTEST_SKIP() << skip;
    url_ = testing::PostgresEnvironment::fresh_database(*server_);
    database_ = url_.substr(url_.rfind('/') + 1);
  }

  PostgresStoreOptions options(const std::string& url) const {
    PostgresStoreOptions out;
    out.url = url;
    out.log_error = [this](std::string_view message) {
      std::lock_guard lock(log_mutex_);
      logged_.emplace_back(message);
    };
    return out;
  }
  std::unique_ptr<PostgresStore> open() const {
    return std::make_unique<PostgresStore>(options(url_));
  }

  // The message of the StoreError that opening throws ("" when it opens). It never holds
  // the password.
  std::string open_error(const PostgresStoreOptions& with) const {
    std::string message;
    try {
      PostgresStore store(with);
    } catch (const StoreError& error) {
      message = error.what();
    }
    EXPECT_EQ(message.find(PostgresServer::kPassword), std::string::npos) << message;
    return message;
  }
  std::string open_error(const std::string& url) const { return open_error(options(url)); }

  std::string sql(const std::string& statement) const {
    return server_->sql(database_, statement).value_or("");
  }
  std::string server_address() const { return "127.0.0.1:" + std::to_string(server_->port()); }

  PostgresServer* server_ = nullptr;
  std::string url_;
  std::string database_;
  mutable std::mutex log_mutex_;
  mutable std::vector<std::string> logged_;
};

// ---- the schema ----------------------------------------------------------------------------

TEST_F(PostgresStoreTest, AnEmptyDatabaseGetsTheSchemaAtTheCurrentVersion) {
  open();
  EXPECT_EQ(sql("SELECT application_id FROM parlor_schema"), std::to_string(pg::kApplicationId));
  EXPECT_EQ(sql("SELECT version FROM parlor_schema"), std::to_string(pg::kSchemaVersion));
  EXPECT_EQ(sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "9");
  // Opening again changes nothing.
  open();
  EXPECT_EQ(sql("SELECT count(*) FROM parlor_schema"), "1");
}

// A database as the build before ratings (schema version 2) left it: migrated to the rating
// tables, its data kept.
TEST_F(PostgresStoreTest, AVersion2DatabaseGainsTheRatingTables) {
  sql(std::string(pg::migration(0)) +
      "INSERT INTO parlor_schema (application_id, version) VALUES (" +
      std::to_string(pg::kApplicationId) + ", 1);" + std::string(pg::migration(1)) +
      "UPDATE parlor_schema SET version = 2;"
      "INSERT INTO players VALUES ('p1', 'P', decode(repeat('00', 32), 'hex'), 1);");
  auto store = open();
  EXPECT_EQ(sql("SELECT version FROM parlor_schema"), std::to_string(pg::kSchemaVersion));
  EXPECT_EQ(sql("SELECT count(*) FROM players"), "1");
  EXPECT_EQ(sql("SELECT count(*) FROM ratings"), "0");
  store->record_rated_game(rated_game("r", 1, {"p1", "bot:greedy"}, {0, 1}, {1, 0}), nullptr);
  store->flush();
  EXPECT_EQ(sql("SELECT count(*) FROM ratings"), "2");
  EXPECT_EQ(sql("SELECT games FROM ratings WHERE player_id = 'bot:greedy'"), "1");
}

// A database as the build before player retention (schema version 3) left it: its players
// count as last seen when they were created, and the oldest are pruned first.
TEST_F(PostgresStoreTest, AVersion3DatabaseGainsLastSeenTimes) {
  sql(std::string(pg::migration(0)) +
      "INSERT INTO parlor_schema (application_id, version) VALUES (" +
      std::to_string(pg::kApplicationId) + ", 1);" + std::string(pg::migration(1)) +
      std::string(pg::migration(2)) +
      "UPDATE parlor_schema SET version = 3;"
      "INSERT INTO players VALUES ('old', 'P', decode(repeat('00', 32), 'hex'), 10);"
      "INSERT INTO players VALUES ('new', 'Q', decode(repeat('00', 32), 'hex'), 5000);");
  auto store = open();
  EXPECT_EQ(sql("SELECT version FROM parlor_schema"), std::to_string(pg::kSchemaVersion));
  EXPECT_EQ(sql("SELECT last_seen_ms FROM players WHERE id = 'old'"), "10");
  EXPECT_EQ(sql("SELECT last_seen_ms FROM players WHERE id = 'new'"), "5000");
  store->prune_idle_players(1000);
  store->flush();
  const auto state = store->load();
  ASSERT_EQ(state.players.size(), 1u);
  EXPECT_EQ(state.players[0].id, "new");
  EXPECT_EQ(state.players[0].last_seen_ms, 5000);
}

TEST_F(PostgresStoreTest, ADatabaseWithOtherTablesIsRefusedAndLeftUntouched) {
  sql("CREATE TABLE invoices (id integer)");
  const std::string error = open_error(url_);
  EXPECT_NE(error.find("database \"" + database_ + "\" on PostgreSQL server " + server_address() +
                       " holds 1 other tables in schema public but no Parlor schema"),
            std::string::npos)
      << error;
  EXPECT_EQ(sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "1");
}

TEST_F(PostgresStoreTest, SomeoneElsesParlorSchemaTableIsRefused) {
  sql("CREATE TABLE parlor_schema (application_id bigint, version integer);"
      "INSERT INTO parlor_schema VALUES (42, 1)");
  const std::string error = open_error(url_);
  EXPECT_NE(error.find("has a parlor_schema table that is not Parlor's"), std::string::npos)
      << error;
}

TEST_F(PostgresStoreTest, ANewerSchemaIsRefused) {
  open();
  sql("UPDATE parlor_schema SET version = 99");
  const std::string error = open_error(url_);
  EXPECT_NE(error.find("database \"" + database_ + "\" on PostgreSQL server " + server_address() +
                       " has Parlor schema version 99, newer than this build's " +
                       std::to_string(pg::kSchemaVersion)),
            std::string::npos)
      << error;
  EXPECT_EQ(sql("SELECT version FROM parlor_schema"), "99");
}

// ---- clear errors at start -----------------------------------------------------------------

TEST_F(PostgresStoreTest, AnUnreachableServerIsAClearError) {
  const int port = unused_port();
  const std::string error = open_error(std::string("postgres://") + PostgresServer::kUser + ":" +
                                       PostgresServer::kPassword +
                                       "@127.0.0.1:" + std::to_string(port) + "/" + database_);
  EXPECT_NE(error.find("cannot reach PostgreSQL server 127.0.0.1:" + std::to_string(port) +
                       " (connection refused)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find(":***@"), std::string::npos) << "the URL is shown redacted: " << error;
}

TEST_F(PostgresStoreTest, AWrongPasswordIsAClearError) {
  const std::string error = open_error(std::string("postgres://") + PostgresServer::kUser +
                                       ":not-the-password@" + server_address() + "/" + database_);
  EXPECT_NE(error.find("PostgreSQL server " + server_address() + " refused user \"" +
                       PostgresServer::kUser + "\" for database \"" + database_ +
                       "\": password authentication failed"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("not-the-password"), std::string::npos) << error;
}

TEST_F(PostgresStoreTest, AMissingDatabaseIsAClearError) {
  const std::string error = open_error(server_->url("no_such_db"));
  EXPECT_NE(
      error.find("database \"no_such_db\" does not exist on PostgreSQL server " + server_address()),
      std::string::npos)
      << error;
}

TEST_F(PostgresStoreTest, ASecondServerOnTheSameDatabaseIsRefused) {
  auto first = open();
  auto with = options(url_);
  with.lock_wait = std::chrono::milliseconds(200);
  const std::string error = open_error(with);
  EXPECT_NE(error.find("database \"" + database_ + "\" on PostgreSQL server " + server_address() +
                       " is in use by another parlor-server"),
            std::string::npos)
      << error;
  first->close();
  EXPECT_EQ(open_error(with), "") << "closing releases the database at once";
}

// ---- group commit and failures -------------------------------------------------------------

// Every write transaction takes a transaction id; counting them counts the commits.
TEST_F(PostgresStoreTest, ABatchIsOneTransaction) {
  auto with = options(url_);
  with.batch_window = std::chrono::milliseconds(5);
  auto store = std::make_unique<PostgresStore>(with);
  store->save_player(player("p1"), nullptr);
  store->save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
  store->flush();
  const auto batches_before = store->stats().batches;
  const auto xid = [&] { return std::stoll(sql("SELECT pg_current_xact_id()::text")); };

  constexpr int kMoves = 1000;
  const auto before = xid();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kMoves / 4; ++i) store->append_move(move("r1", 1, t * 1000 + i), nullptr);
    });
  }
  for (auto& thread : threads) thread.join();
  store->flush();
  const auto transactions = xid() - before - 1;
  EXPECT_GE(transactions, 1);
  EXPECT_LT(transactions, kMoves / 10) << "1000 appends should take a few dozen commits at most";
  // Each committed batch took one; nothing else writes on the test server.
  EXPECT_EQ(static_cast<std::uint64_t>(transactions), store->stats().batches - batches_before);
  EXPECT_EQ(sql("SELECT count(*) FROM moves"), std::to_string(kMoves));
  store.reset();

  // Without grouping every write is its own transaction.
  with.batch_window = std::chrono::microseconds(0);
  with.max_batch = 1;
  store = std::make_unique<PostgresStore>(with);
  const auto single = xid();
  for (int i = 0; i < 100; ++i) store->append_move(move("r1", 1, 10'000 + i), nullptr);
  store->flush();
  EXPECT_GE(xid() - single - 1, 100);
}

TEST_F(PostgresStoreTest, ALostConnectionFailsItsWritesAndTheNextBatchReconnects) {
  auto store = open();
  Outcomes before;
  store->save_player(player("p1"), before.callback());
  store->save_room(started(room("r1", "p1"), 1, 5, 0), before.callback());
  store->save_room(started(room("r2", "p1"), 1, 5, 0), before.callback());
  store->append_move(move("r1", 1, 1), before.callback());
  store->flush();
  ASSERT_EQ(before.ok, 4);

  // The writer's backend is the one holding the database's advisory lock.
  const std::string writer =
      "FROM pg_locks WHERE locktype = 'advisory' AND classid = 1347572818 AND objid = 2"
      " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
  ASSERT_EQ(sql("SELECT pg_terminate_backend(pid) " + writer), "t");
  for (int i = 0; i < 200 && sql("SELECT count(*) " + writer) != "0"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  Outcomes lost;
  store->append_move(move("r1", 1, 2), lost.callback());
  store->flush();
  EXPECT_EQ(lost.failed, 1) << "never acknowledged: the connection was gone";

  Outcomes after;
  store->append_move(move("r1", 1, 3), after.callback());  // r1's log would have a gap
  store->append_move(move("r2", 1, 1), after.callback());
  store->save_player(player("p2"), after.callback());
  store->flush();
  EXPECT_EQ(after.failed, 1);
  EXPECT_EQ(after.ok, 2) << "the writer reconnected";
  EXPECT_EQ(sql("SELECT count(*) " + writer), "1") << "and holds the database again";

  const auto state = store->load();
  std::map<std::string, std::vector<MoveRecord>> moves;
  for (const auto& loaded : state.rooms) moves[loaded.room.id] = loaded.moves;
  expect_moves(moves["r1"], "r1", 1, {1});
  expect_moves(moves["r2"], "r2", 1, {1});
  EXPECT_EQ(state.players.size(), 2u);

  std::lock_guard lock(log_mutex_);
  ASSERT_FALSE(logged_.empty());
  EXPECT_NE(logged_[0].find("the connection to the database failed"), std::string::npos)
      << logged_[0];
  for (const auto& message : logged_) {
    EXPECT_EQ(message.find(PostgresServer::kPassword), std::string::npos) << message;
  }
}

TEST_F(PostgresStoreTest, LoadingReconnectsAfterItsConnectionIsLost) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  store->flush();
  ASSERT_EQ(store->load().players.size(), 1u);
  sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
      " AND pid <> pg_backend_pid() AND pid NOT IN (SELECT pid FROM pg_locks"
      " WHERE locktype = 'advisory' AND objid = 2)");
  // The broken connection is noticed, replaced, and the read done on the new one.
  EXPECT_EQ(store->load().players.size(), 1u);
}

TEST_F(PostgresStoreTest, TextWithANulByteIsRefusedNotCutShort) {
  auto store = open();
  Outcomes outcomes;
  PlayerRecord p = player("p1");
  p.name = std::string("Ann\0Bob", 7);
  store->save_player(p, outcomes.callback());
  store->save_player(player("p2"), outcomes.callback());
  store->flush();
  EXPECT_EQ(outcomes.failed, 1);
  EXPECT_EQ(outcomes.ok, 1);
  EXPECT_EQ(sql("SELECT count(*) FROM players"), "1");
}

// Moves queued together go as one multi-row INSERT of arrays: quotes, backslashes, braces,
// commas and NULLs in them must not break the array literals (which the writer would survive
// only by sending the batch again, one statement per move).
TEST_F(PostgresStoreTest, MovesQueuedTogetherGoAsOneStatementWhateverTheirText) {
  auto with = options(url_);
  with.batch_window = std::chrono::milliseconds(50);
  PostgresStore store(with);
  store.save_player(player("p1"), nullptr);
  store.save_room(started(room("r1", "p1"), 1, 5, 0), nullptr);
  Outcomes outcomes;
  const std::vector<std::string> says = {"a \"quoted\" word", "back\\slash", "{brace}, comma",
                                         "NULL", "\u00e9t\u00e9"};
  for (std::size_t i = 0; i < says.size(); ++i) {
    MoveRecord m = move("r1", 1, static_cast<std::int64_t>(i + 1));
    m.move = {{"say", says[i]}};
    store.append_move(m, outcomes.callback());
  }
  store.flush();
  EXPECT_EQ(outcomes.ok, static_cast<int>(says.size()));
  EXPECT_EQ(store.resent_batches(), 0u);
  EXPECT_EQ(store.stats().batches, 1u);
  EXPECT_EQ(sql("SELECT string_agg(move->>'say', '|' ORDER BY seq) FROM moves"),
            "a \"quoted\" word|back\\slash|{brace}, comma|NULL|\u00e9t\u00e9");
  EXPECT_EQ(sql("SELECT count(*) FROM moves WHERE state_hash IS NULL"), "4");

  // A refused move among them: the batch goes again, one statement per move, and only that
  // move and the later ones of its game fail.
  Outcomes mixed;
  store.append_move(move("r1", 1, 6), mixed.callback());
  store.append_move(move("r1", 1, 3), mixed.callback());  // a seq the game has
  store.append_move(move("r1", 1, 7), mixed.callback());
  store.flush();
  EXPECT_EQ(mixed.ok, 1);
  EXPECT_EQ(mixed.failed, 2);
  EXPECT_EQ(store.resent_batches(), 2u) << "once to find the move, once without it";
  EXPECT_EQ(sql("SELECT max(seq) FROM moves"), "6");
}

TEST_F(PostgresStoreTest, JsonIsStoredAsWritten) {
  auto store = open();
  store->save_player(player("p1"), nullptr);
  RoomRecord r = started(room("r1", "p1"), 1, 5, 0);
  r.game_options = {{"zeta", 1}, {"alpha", "x\u0001y"}, {"big", 18446744073709551615ULL}};
  store->save_room(r, nullptr);
  store->flush();
  const auto history = store->load_room("r1");
  ASSERT_TRUE(history);
  EXPECT_EQ(history->room.game_options, r.game_options);
  EXPECT_EQ(sql("SELECT game_options::text FROM rooms"), r.game_options.dump());
}

}  // namespace
}  // namespace parlor::server
