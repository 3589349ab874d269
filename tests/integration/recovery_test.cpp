// Durable rooms: a server stopped mid-game and a new one started on the same data
// directory continue the game with the same seq and hands; a damaged data file is a clear
// error at start, never a silent empty lobby.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <sqlite3.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "games/registry.h"
#include "games/testing/self_play.h"
#include "server/store/sqlite_store.h"
#include "server/store/store.h"
#include "server/store/testing/postgres_environment.h"
#include "server/store/testing/sqlite_file.h"
#include "tests/support/game_driver.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("parlor-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

server::ServerConfig durable_config(const std::filesystem::path& dir) {
  auto config = ServerFixture::test_config();
  config.store = "sqlite";
  config.data_dir = dir.string();
  return config;
}

// Plays 12 moves, stops the server, starts a new one on the same store and finishes the game.
void continue_after_restart(const server::ServerConfig& config) {
  const std::uint64_t seed = test_seed(31);
  std::string room;
  std::vector<Json> welcomes;
  std::int64_t seq = 0;
  std::string error;
  auto mirror = create_game(*find_game("bigtwo"), Json::object(), 4, seed, nullptr, error);
  {
    ServerFixture server(config);
    std::vector<std::unique_ptr<TestClient>> players;
    for (int s = 0; s < 4; ++s) {
      players.push_back(server.connect());
      welcomes.push_back(players.back()->hello("p" + std::to_string(s)));
    }
    room = players[0]->request(
        {{"type", "create_room"}, {"kind", "bigtwo"}, {"options", {{"seed", seed}}}})["room"];
    for (int s = 1; s < 4; ++s) {
      ASSERT_EQ(players[static_cast<std::size_t>(s)]->request(
                    {{"type", "join_room"}, {"room", room}, {"seat", s}})["type"],
                "joined");
    }
    ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
    for (auto& p : players) ASSERT_TRUE(p->next_of("state"));
    std::vector<TestClient*> raw;
    for (auto& p : players) raw.push_back(p.get());
    DriveResult part = drive_game(raw, {}, room, *mirror, 0, seed, 12);
    ASSERT_EQ(part.failure, "");
    seq = part.last_seq;
    ASSERT_EQ(seq, 12);
  }  // the server stops; every acknowledged move is in the store

  ServerFixture restarted(config);
  std::vector<std::unique_ptr<TestClient>> players;
  std::optional<Json> first_history;
  for (int s = 0; s < 4; ++s) {
    players.push_back(restarted.connect());
    const Json welcome =
        players.back()->request({{"type", "hello"},
                                 {"token", welcomes[static_cast<std::size_t>(s)]["token"]},
                                 {"protocol", 1}});
    ASSERT_EQ(welcome["type"], "welcome") << welcome.dump();
    EXPECT_EQ(welcome["player"], welcomes[static_cast<std::size_t>(s)]["player"]);
    auto state = players.back()->next_of("state");
    ASSERT_TRUE(state);
    EXPECT_EQ((*state)["seq"], seq);
    EXPECT_EQ((*state)["view"]["hand"], mirror->view(s)["hand"]) << "seat " << s;
    // The play log too, rebuilt from the stored moves: the deal and the 12 moves, the same
    // public events for every seat.
    auto history = players.back()->next_of("event_history");
    ASSERT_TRUE(history);
    ASSERT_EQ((*history)["entries"].size(), 13u) << history->dump();
    for (std::size_t i = 0; i < 13; ++i) EXPECT_EQ((*history)["entries"][i]["seq"], i);
    EXPECT_EQ((*history)["entries"][0]["events"][0]["type"], "start");
    EXPECT_EQ(scan_frame(*history, *mirror, s), "") << "no card of another seat's hand";
    if (first_history) {
      EXPECT_EQ(*history, *first_history) << "seat " << s;
    } else {
      first_history = history;
    }
  }
  for (auto& p : players) p->pending().clear();
  std::vector<TestClient*> raw;
  for (auto& p : players) raw.push_back(p.get());
  DriveResult rest = drive_game(raw, {}, room, *mirror, seq, seed + 1);
  ASSERT_EQ(rest.failure, "");
  EXPECT_TRUE(rest.finished);
}

TEST(Recovery, GameContinuesAfterRestartWithSameSeqAndHands) {
  const auto dir = fresh_dir("recovery");
  continue_after_restart(durable_config(dir));
  std::filesystem::remove_all(dir);
}

// The same with the store in PostgreSQL (a server of this test's own, a fresh database).
TEST(Recovery, GameContinuesAfterRestartFromPostgres) {
  std::string skip;
  server::testing::PostgresServer* postgres = nullptr;
  try {
    postgres = server::testing::PostgresEnvironment::server(skip);
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  if (!postgres) GTEST_SKIP() << skip;
  auto config = ServerFixture::test_config();
  config.store = server::testing::PostgresEnvironment::fresh_database(*postgres);
  continue_after_restart(config);
  // Both servers wrote to the database: the whole game is there, finished.
  const std::string database = config.store.substr(config.store.rfind('/') + 1);
  EXPECT_EQ(postgres->sql(database, "SELECT status FROM rooms"), "finished");
  EXPECT_GT(std::stoi(postgres->sql(database, "SELECT count(*) FROM moves").value_or("0")), 12);
}

TEST(Replay, SeatsSeeOnlyWhatTheySawAndTheRevealWaitsForTheEnd) {
  const auto dir = fresh_dir("replay");
  ServerFixture server(durable_config(dir));
  const std::uint64_t seed = test_seed(41);
  std::vector<std::unique_ptr<TestClient>> players;
  for (int s = 0; s < 2; ++s) players.push_back(server.player("p" + std::to_string(s)));
  const std::string room = players[0]->request({{"type", "create_room"},
                                                {"kind", "bigtwo"},
                                                {"seats", 2},
                                                {"options", {{"seed", seed}}}})["room"];
  ASSERT_EQ(players[1]->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  for (auto& p : players) ASSERT_TRUE(p->next_of("state"));
  std::string error;
  auto mirror = create_game(*find_game("bigtwo"), Json::object(), 2, seed, nullptr, error);
  DriveResult part =
      drive_game({players[0].get(), players[1].get()}, {}, room, *mirror, 0, seed, 6);
  ASSERT_EQ(part.failure, "");

  // Mid-game: only your own seat, and no reveal.
  EXPECT_EQ(players[0]->request({{"type", "get_replay"}, {"room", room}, {"seat", 1}})["code"],
            "not_allowed");
  const Json mine = players[0]->request({{"type", "get_replay"}, {"room", room}, {"seat", 0}});
  ASSERT_EQ(mine["type"], "replay") << mine.dump().substr(0, 300);
  EXPECT_FALSE(mine["finished"].get<bool>());
  EXPECT_TRUE(mine["reveal"].is_null());
  ASSERT_EQ(mine["steps"].size(), 7U);
  EXPECT_EQ(mine["steps"][6]["view"], mirror->view(0)) << "the last step is what seat 0 sees now";
  for (const Json& step : mine["steps"]) {
    if (step.contains("seat") && step["seat"] != 0) {
      EXPECT_FALSE(step.contains("move"));
    }
    EXPECT_EQ(scan_frame(step, *mirror, 0), "") << "no card seat 1 still holds";
  }
  const std::string refused = http_get(server.port(), "/api/games/" + room + "/replay?as=1");
  EXPECT_NE(refused.find("403"), std::string::npos) << refused.substr(0, 200);

  // Finished: any seat, and the full reveal.
  DriveResult rest =
      drive_game({players[0].get(), players[1].get()}, {}, room, *mirror, 6, seed + 1);
  ASSERT_EQ(rest.failure, "");
  const std::string body = http_get(server.port(), "/api/games/" + room + "/replay?as=1");
  ASSERT_NE(body.find("200 OK"), std::string::npos) << body.substr(0, 200);
  const Json replay = Json::parse(body.substr(body.find("\r\n\r\n") + 4));
  EXPECT_TRUE(replay["finished"].get<bool>());
  EXPECT_EQ(replay["steps"].size(), static_cast<std::size_t>(rest.last_seq + 1));
  EXPECT_EQ(replay["reveal"]["moves"].size(), static_cast<std::size_t>(rest.last_seq));
  EXPECT_EQ(replay["result"], mirror->result());
  EXPECT_FALSE(replay["reveal"]["initial"].contains("seed")) << "the seed never leaves the server";
  EXPECT_NE(http_get(server.port(), "/api/games/nope/replay").find("404"), std::string::npos);
  EXPECT_NE(http_get(server.port(), "/api/games/" + room + "/replay?as=x").find("400"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// An engine that no longer reaches the stored checkpoint hashes must not silently diverge:
// the room comes back frozen, visible and unplayable.
TEST(Recovery, AGameThatNoLongerReplaysIdenticallyIsFrozen) {
  const auto dir = fresh_dir("frozen");
  const std::uint64_t seed = 57;
  std::string room;
  Json welcome;
  {
    ServerFixture server(durable_config(dir));
    std::vector<std::unique_ptr<TestClient>> players;
    for (int s = 0; s < 2; ++s) players.push_back(server.connect());
    welcome = players[0]->hello("alice");
    players[1]->hello("bob");
    room = players[0]->request({{"type", "create_room"},
                                {"kind", "bigtwo"},
                                {"seats", 2},
                                {"options", {{"seed", seed}}}})["room"];
    ASSERT_EQ(players[1]->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
    ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
    for (auto& p : players) ASSERT_TRUE(p->next_of("state"));
    std::string error;
    auto mirror = create_game(*find_game("bigtwo"), Json::object(), 2, seed, nullptr, error);
    DriveResult part =
        drive_game({players[0].get(), players[1].get()}, {}, room, *mirror, 0, seed, 17);
    ASSERT_EQ(part.failure, "");
    ASSERT_FALSE(mirror->finished()) << "pick a seed whose game lasts past the checkpoint";
  }
  // Pretend a different engine wrote the log: its checkpoints no longer match. The game is
  // unfinished, so its moves are in the store's redo log: each frame is written again with
  // every state hash changed.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "parlor.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT generation FROM redo_state", -1, &statement, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  const auto generation = static_cast<std::uint64_t>(sqlite3_column_int64(statement, 0));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  server::RedoLog log(dir / ("parlor.db.redo-" + std::to_string(generation % 2)));
  const auto frames = log.read(generation);
  ASSERT_FALSE(frames.empty());
  log.rewind();
  int changed = 0;
  for (const auto& frame : frames) {
    std::string payload;
    for (auto write : server::decode_writes(frame.payload)) {
      if (auto* move = std::get_if<server::MoveRecord>(&write);
          move != nullptr && move->state_hash) {
        ++*move->state_hash;
        ++changed;
      }
      server::encode_write(write, payload);
    }
    log.append(generation, frame.batch, payload);
  }
  EXPECT_GT(changed, 0);

  ServerFixture restarted(durable_config(dir));
  auto alice = restarted.connect();
  ASSERT_EQ(
      alice->request({{"type", "hello"}, {"token", welcome["token"]}, {"protocol", 1}})["type"],
      "welcome");
  auto pushed = alice->next_of("room");
  ASSERT_TRUE(pushed);
  EXPECT_EQ((*pushed)["status"], "frozen");
  const Json refused =
      alice->request({{"type", "move"}, {"room", room}, {"move", {{"action", "pass"}}}});
  EXPECT_EQ(refused["code"], "not_allowed");
  std::filesystem::remove_all(dir);
}

std::int64_t count_rooms(const std::filesystem::path& dir, const std::string& id) {
  return server::store_test::first_value(dir / "parlor.db",
                                         "SELECT count(*) FROM rooms WHERE id = '" + id + "'");
}

TEST(Recovery, FinishedRoomsPastTheReplayRetentionLeaveTheStore) {
  const auto dir = fresh_dir("retention");
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  {
    server::SqliteStoreOptions options;
    options.data_dir = dir;
    server::SqliteStore store(options);
    store.save_player({"p1", "Ann", {}, now_ms}, nullptr);
    for (const auto& [id, finished_ms] :
         {std::pair<std::string, std::int64_t>{"old", now_ms - 3 * 3'600'000},
          std::pair<std::string, std::int64_t>{"recent", now_ms - 60'000}}) {
      server::RoomRecord room;
      room.id = id;
      room.kind = "bigtwo";
      room.seats = 4;
      room.creator_id = "p1";
      room.occupants = {server::SeatRecord{"p1", "Ann", std::nullopt}};
      room.status = server::StoredRoomStatus::kFinished;
      room.game_number = 1;
      room.created_ms = finished_ms - 60'000;
      room.game_started_ms = finished_ms - 60'000;
      room.finished_ms = finished_ms;
      store.save_room(room, nullptr);
    }
    store.flush();
  }
  ASSERT_EQ(count_rooms(dir, "old"), 1);
  auto config = durable_config(dir);
  config.replay_retention = std::chrono::hours(2);
  config.finished_room_retention = std::chrono::seconds(1);  // sweeps every half second
  ServerFixture fixture(config);
  // The first sweep after the start prunes what ended more than two hours ago.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count_rooms(dir, "old") != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(count_rooms(dir, "old"), 0) << "ended three hours ago: past the retention";
  EXPECT_EQ(count_rooms(dir, "recent"), 1) << "ended a minute ago: kept";
  std::filesystem::remove_all(dir);
}

TEST(Recovery, DamagedDataFileIsAClearErrorAtStart) {
  const auto dir = fresh_dir("damaged");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "parlor.db") << "this is not a database, just some bytes of text\n";
  server::Server server(durable_config(dir));
  try {
    server.start();
    FAIL() << "a damaged data file must stop the server";
  } catch (const server::StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("parlor.db"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace parlor::testing
