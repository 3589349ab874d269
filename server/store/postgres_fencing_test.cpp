// Cluster mode's guarantees in PostgreSQL itself: two stores on one database stand for two
// nodes. Once a room is fenced for a new owner (a higher epoch), the old owner cannot store a
// single write for it — refused by the database inside the writing transaction — while its
// other rooms' writes in the same batch are stored; the new owner loads every move the old
// one stored and goes on. Also the cluster's reads: rooms without a live owner, one room with
// its players, a player by token.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>

#include "server/store/postgres_cluster.h"
#include "server/store/postgres_store.h"
#include "server/store/store_test_records.h"
#include "server/store/testing/postgres_environment.h"

namespace parlor::server {
namespace {

using namespace store_test;
using namespace std::chrono_literals;

class PostgresFencingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string skip;
    server_ = testing::PostgresEnvironment::server(skip);
    if (!server_) GTEST_SKIP() << skip;
    url_ = testing::PostgresEnvironment::fresh_database(*server_);
    database_ = url_.substr(url_.rfind('/') + 1);
  }

  // A node's store: several share the database.
  std::unique_ptr<PostgresStore> node_store(std::chrono::microseconds batch_window = 500us) {
    PostgresStoreOptions options;
    options.url = url_;
    options.exclusive = false;
    options.batch_window = batch_window;
    options.log_error = [](std::string_view) {};
    return std::make_unique<PostgresStore>(std::move(options));
  }

  static RoomRecord owned(RoomRecord record, std::int64_t epoch, const std::string& owner) {
    record.epoch = epoch;
    record.owner = owner;
    return record;
  }
  static MoveRecord at_epoch(MoveRecord record, std::int64_t epoch) {
    record.epoch = epoch;
    return record;
  }

  // Appends and waits for the outcome.
  static WriteResult append(Store& store, MoveRecord record) {
    std::promise<WriteResult> done;
    store.append_move(std::move(record), [&](WriteResult result) { done.set_value(result); });
    return done.get_future().get();
  }
  static WriteResult save(Store& store, RoomRecord record) {
    std::promise<WriteResult> done;
    store.save_room(std::move(record), [&](WriteResult result) { done.set_value(result); });
    return done.get_future().get();
  }

  std::string sql(const std::string& statement) const {
    return server_->sql(database_, statement).value_or("");
  }

  testing::PostgresServer* server_ = nullptr;
  std::string url_;
  std::string database_;
};

TEST_F(PostgresFencingTest, AnOwnerFencedOutCannotWriteAndTheNewOwnerHasEveryMove) {
  auto a = node_store();
  auto b = node_store();
  a->save_player(player("p1"), nullptr);
  ASSERT_EQ(save(*a, owned(started(room("r1", "p1"), 1, 5, 0), 1, "node-a")),
            WriteResult::kDurable);
  for (int seq = 1; seq <= 3; ++seq) {
    ASSERT_EQ(append(*a, at_epoch(move("r1", 1, seq), 1)), WriteResult::kDurable);
  }

  PostgresCluster cluster(url_, 10s);
  // node-a is not among the live nodes: its room is an orphan.
  const auto orphans = cluster.rooms_without_live_owner({"node-b"}, {}, 10);
  ASSERT_EQ(orphans.size(), 1u);
  EXPECT_EQ(orphans[0].room, "r1");
  EXPECT_EQ(orphans[0].owner, "node-a");
  EXPECT_EQ(orphans[0].epoch, 1);
  EXPECT_TRUE(cluster.rooms_without_live_owner({"node-a"}, {}, 10).empty());

  ASSERT_TRUE(cluster.fence("r1", "node-b", 2));
  EXPECT_FALSE(cluster.fence("r1", "node-c", 2)) << "one winner per epoch";
  const auto taken = cluster.load_room("r1");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->room.room.epoch, 2);
  EXPECT_EQ(taken->room.room.owner, "node-b");
  expect_moves(taken->room.moves, "r1", 1, {1, 2, 3});
  ASSERT_EQ(taken->players.size(), 1u);
  EXPECT_EQ(taken->players[0].id, "p1");

  // The old owner wakes up: neither a move nor the room record gets through.
  EXPECT_EQ(append(*a, at_epoch(move("r1", 1, 4), 1)), WriteResult::kFenced);
  EXPECT_EQ(append(*a, at_epoch(move("r1", 1, 5), 1)), WriteResult::kFenced);
  EXPECT_EQ(save(*a, owned(started(room("r1", "p1"), 1, 5, 0), 1, "node-a")), WriteResult::kFenced);
  // The new owner goes on from the last stored move.
  EXPECT_EQ(append(*b, at_epoch(move("r1", 1, 4), 2)), WriteResult::kDurable);
  EXPECT_EQ(save(*b, owned(started(room("r1", "p1"), 1, 5, 0), 2, "node-b")),
            WriteResult::kDurable);
  EXPECT_EQ(sql("SELECT string_agg(seq || ':' || epoch, ',' ORDER BY seq) FROM moves"),
            "1:1,2:1,3:1,4:2");
  EXPECT_EQ(sql("SELECT owner || ':' || epoch FROM rooms WHERE id = 'r1'"), "node-b:2");
}

TEST_F(PostgresFencingTest, ARoomTakenOverBringsTheSpectatorsTheStoreKnows) {
  auto a = node_store();
  a->save_player(player("p1"), nullptr);
  a->save_player(player("s1"), nullptr);
  ASSERT_EQ(save(*a, owned(started(room("r1", "p1"), 1, 5, 0), 1, "node-a")),
            WriteResult::kDurable);
  PostgresCluster cluster(url_, 10s);
  ASSERT_TRUE(cluster.fence("r1", "node-b", 2));
  // "ghost" never said hello to this cluster; p1 is seated and loaded once.
  const auto taken = cluster.load_room("r1", {"s1", "ghost", "p1"});
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->spectators, (std::vector<std::string>{"s1", "p1"}));
  std::vector<std::string> loaded;
  for (const PlayerRecord& p : taken->players) loaded.push_back(p.id);
  std::sort(loaded.begin(), loaded.end());
  EXPECT_EQ(loaded, (std::vector<std::string>{"p1", "s1"}));
}

// A node whose write failed loads the room again at a newer epoch (Table::stall): its later
// moves of that game go on from what was stored, where the same epoch's stay refused (a log
// never has a gap).
TEST_F(PostgresFencingTest, ARoomLoadedAgainAtANewerEpochGoesOnAfterAFailedMove) {
  auto a = node_store();
  a->save_player(player("p1"), nullptr);
  ASSERT_EQ(save(*a, owned(started(room("r1", "p1"), 1, 5, 0), 1, "node-a")),
            WriteResult::kDurable);
  ASSERT_EQ(append(*a, at_epoch(move("r1", 1, 1), 1)), WriteResult::kDurable);
  EXPECT_EQ(append(*a, at_epoch(move("r1", 1, 1), 1)), WriteResult::kFailed);  // a duplicate
  EXPECT_EQ(append(*a, at_epoch(move("r1", 1, 2), 1)), WriteResult::kFailed);
  PostgresCluster cluster(url_, 10s);
  ASSERT_TRUE(cluster.fence("r1", "node-a", 2));
  EXPECT_EQ(append(*a, at_epoch(move("r1", 1, 2), 2)), WriteResult::kDurable);
  EXPECT_EQ(sql("SELECT string_agg(seq || ':' || epoch, ',' ORDER BY seq) FROM moves"), "1:1,2:2");
}

TEST_F(PostgresFencingTest, AFencedWriteFailsAloneInItsBatch) {
  // A wide window: both moves go in one transaction.
  auto a = node_store(50'000us);
  a->save_player(player("p1"), nullptr);
  a->save_room(owned(started(room("r1", "p1"), 1, 5, 0), 1, "node-a"), nullptr);
  a->save_room(owned(started(room("r2", "p1"), 1, 6, 0), 1, "node-a"), nullptr);
  a->flush();
  PostgresCluster cluster(url_, 10s);
  ASSERT_TRUE(cluster.fence("r1", "node-b", 2));

  std::promise<WriteResult> first, second;
  a->append_move(at_epoch(move("r1", 1, 1), 1), [&](WriteResult r) { first.set_value(r); });
  a->append_move(at_epoch(move("r2", 1, 1), 1), [&](WriteResult r) { second.set_value(r); });
  EXPECT_EQ(first.get_future().get(), WriteResult::kFenced);
  EXPECT_EQ(second.get_future().get(), WriteResult::kDurable);
  EXPECT_EQ(sql("SELECT string_agg(room_id, ',') FROM moves"), "r2");
}

TEST_F(PostgresFencingTest, AnotherOwnerAtTheSameEpochIsRefused) {
  // Two nodes that drew the same new room id: the second cannot overwrite the first's room.
  auto a = node_store();
  auto b = node_store();
  a->save_player(player("p1"), nullptr);
  ASSERT_EQ(save(*a, owned(room("r1", "p1"), 1, "node-a")), WriteResult::kDurable);
  EXPECT_EQ(save(*b, owned(room("r1", "p1"), 1, "node-b")), WriteResult::kFenced);
  EXPECT_EQ(sql("SELECT owner FROM rooms WHERE id = 'r1'"), "node-a");
}

// A node serving more rooms than one takeover pass lists must still find the orphans: the
// rooms it serves are left out of the listing, not counted against its limit.
TEST_F(PostgresFencingTest, RoomsANodeServesDoNotHideOrphansBehindThem) {
  auto a = node_store();
  a->save_player(player("p1"), nullptr);
  for (const char* id : {"a1", "a2", "a3"}) {
    ASSERT_EQ(save(*a, owned(started(room(id, "p1"), 1, 5, 0), 1, "node-a")),
              WriteResult::kDurable);
  }
  RoomRecord later = owned(started(room("c1", "p1"), 1, 5, 0), 1, "node-c");
  later.created_ms += 1000;  // listed after node-a's rooms, oldest first
  ASSERT_EQ(save(*a, later), WriteResult::kDurable);

  PostgresCluster cluster(url_, 10s);
  // node-a asks (itself left out of the live nodes, so that its own unserved rooms come too).
  const auto orphans = cluster.rooms_without_live_owner({}, {"a1", "a2", "a3"}, 2);
  ASSERT_EQ(orphans.size(), 1u);
  EXPECT_EQ(orphans[0].room, "c1");
  EXPECT_EQ(orphans[0].owner, "node-c");
  // A room of its own that it no longer serves is listed for it to take back.
  const auto own = cluster.rooms_without_live_owner({"node-c"}, {"a1", "a3"}, 10);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].room, "a2");
}

TEST_F(PostgresFencingTest, AFinishedRoomIsNeitherAnOrphanNorFenced) {
  auto a = node_store();
  a->save_player(player("p1"), nullptr);
  ASSERT_EQ(save(*a, owned(ended(started(room("r1", "p1"), 1, 5, 0)), 1, "node-a")),
            WriteResult::kDurable);
  PostgresCluster cluster(url_, 10s);
  EXPECT_TRUE(cluster.rooms_without_live_owner({}, {}, 10).empty());
  EXPECT_FALSE(cluster.fence("r1", "node-b", 2));
  EXPECT_FALSE(cluster.load_room("r1"));
}

TEST_F(PostgresFencingTest, APlayerIsFoundByTheHashOfTheirToken) {
  auto a = node_store();
  a->save_player(player("p1", 3), nullptr);
  a->save_player(player("p2", 4), nullptr);
  a->flush();
  PostgresCluster cluster(url_, 10s);
  const auto found = cluster.find_player(player("p2", 4).token_hash);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, "p2");
  EXPECT_EQ(found->token_hash, player("p2", 4).token_hash);
  EXPECT_FALSE(cluster.find_player(player("p9", 9).token_hash));
}

}  // namespace
}  // namespace parlor::server
