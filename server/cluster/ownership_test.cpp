// Room ownership against a real redis-server started by the test: one winner per claim,
// takeover from a node whose heartbeat lapsed, epochs that only rise (above the store's too),
// and a Redis that restarts empty.
#include "server/cluster/ownership.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/support/redis_server.h"

namespace parlor::server {
namespace {

using namespace std::chrono_literals;
using testing::RedisServer;

class OwnershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!RedisServer::available()) GTEST_SKIP() << "redis-server is not installed";
    redis = std::make_unique<RedisServer>();
  }

  std::unique_ptr<RedisClient> client() const {
    return std::make_unique<RedisClient>(parse_redis_url(redis->url()), 2000ms);
  }

  // Waits (bounded) until `node`'s heartbeat has lapsed in Redis.
  static bool wait_dead(Ownership& observer, const std::string& node) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
      bool alive = false;
      for (const NodeInfo& n : observer.live_nodes()) alive = alive || n.id == node;
      if (!alive) return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  std::unique_ptr<RedisServer> redis;
};

TEST_F(OwnershipTest, OneNodeOwnsARoomWhileItLives) {
  auto ca = client();
  auto cb = client();
  Ownership a(*ca, {"a", "127.0.0.1:9001"}, 5000ms);
  Ownership b(*cb, {"b", "127.0.0.1:9002"}, 5000ms);
  EXPECT_FALSE(a.heartbeat()) << "a first heartbeat finds the node not alive before";
  EXPECT_TRUE(a.heartbeat());
  b.heartbeat();
  EXPECT_EQ(a.claim("r1", 0), 1);
  EXPECT_EQ(b.claim("r1", 0), std::nullopt);
  auto owner = b.owner("r1");
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->node, "a");
  EXPECT_EQ(owner->epoch, 1);
  EXPECT_TRUE(owner->node_alive);
  EXPECT_TRUE(b.orphans().empty());
  EXPECT_EQ(b.live_nodes().size(), 2u);

  // Released, it is anyone's; the epoch keeps rising.
  EXPECT_FALSE(a.release("r1", 7)) << "only at the epoch it holds";
  EXPECT_TRUE(a.release("r1", 1));
  EXPECT_EQ(b.claim("r1", 0), 2);
}

TEST_F(OwnershipTest, TheStoresEpochIsTheFloor) {
  auto c = client();
  Ownership a(*c, {"a", "x:1"}, 5000ms);
  a.heartbeat();
  EXPECT_EQ(a.claim("r1", 41), 42);
  EXPECT_TRUE(a.release("r1", 42));
  EXPECT_EQ(a.claim("r1", 3), 43) << "never below what Redis saw either";
}

TEST_F(OwnershipTest, ARoomOfADeadNodeIsClaimedByExactlyOneLiveNode) {
  auto ca = client();
  Ownership a(*ca, {"a", "x:1"}, 300ms);
  a.heartbeat();
  ASSERT_EQ(a.claim("r1", 0), 1);
  ASSERT_EQ(a.claim("r2", 0), 1);

  // Three live nodes race for the orphans, each on its own connection.
  constexpr int kNodes = 3;
  std::vector<std::unique_ptr<RedisClient>> clients;
  std::vector<std::unique_ptr<Ownership>> nodes;
  for (int i = 0; i < kNodes; ++i) {
    clients.push_back(client());
    nodes.push_back(std::make_unique<Ownership>(*clients.back(),
                                                NodeInfo{"n" + std::to_string(i), "x:2"}, 5000ms));
    nodes.back()->heartbeat();
  }
  ASSERT_TRUE(wait_dead(*nodes[0], "a")) << "a's key outlived its TTL";
  const auto orphans = nodes[0]->orphans();
  ASSERT_EQ(orphans.size(), 2u);
  EXPECT_EQ(orphans[0].node, "a");

  std::atomic<int> winners{0};
  std::vector<std::thread> racers;
  for (auto& node : nodes) {
    racers.emplace_back([&, n = node.get()] {
      for (const OrphanRoom& orphan : orphans) {
        if (auto epoch = n->claim(orphan.room, 0)) {
          EXPECT_EQ(*epoch, 2);
          ++winners;
        }
      }
    });
  }
  for (auto& t : racers) t.join();
  EXPECT_EQ(winners.load(), 2) << "each orphan went to exactly one node";
  EXPECT_TRUE(nodes[0]->orphans().empty());

  // The old owner wakes up: it learns that it was dead and that the room is not its own.
  EXPECT_FALSE(a.heartbeat());
  auto owner = a.owner("r1");
  ASSERT_TRUE(owner);
  EXPECT_NE(owner->node, "a");
  EXPECT_EQ(owner->epoch, 2);
  EXPECT_FALSE(a.release("r1", 1));
  EXPECT_EQ(a.claim("r1", 0), std::nullopt) << "its new owner is alive";
}

TEST_F(OwnershipTest, ARedisThatRestartsEmptyIsReclaimedAboveTheStoresEpoch) {
  auto ca = client();
  auto cb = client();
  Ownership a(*ca, {"a", "x:1"}, 5000ms);
  Ownership b(*cb, {"b", "x:2"}, 5000ms);
  a.heartbeat();
  b.heartbeat();
  ASSERT_EQ(a.claim("r1", 0), 1);

  redis->kill();
  EXPECT_THROW(a.heartbeat(), RedisError) << "Redis down is an error, not a silent no-op";
  redis->start();

  // The owner notices it must re-register, and re-claims from what its store says (epoch 1).
  EXPECT_FALSE(a.heartbeat());
  b.heartbeat();
  EXPECT_EQ(a.claim("r1", 1), 2);
  EXPECT_EQ(b.claim("r1", 1), std::nullopt);
}

TEST(RedisAddress, ParsesAndNamesItWithoutThePassword) {
  const RedisAddress address = parse_redis_url("redis://:s3cret@10.0.0.5:7000/2");
  EXPECT_EQ(address.host, "10.0.0.5");
  EXPECT_EQ(address.port, 7000);
  EXPECT_EQ(address.password, "s3cret");
  EXPECT_EQ(address.db, 2);
  EXPECT_EQ(address.describe(), "10.0.0.5:7000");
  EXPECT_EQ(parse_redis_url("redis://localhost").port, 6379);
  EXPECT_THROW(parse_redis_url("http://x:1"), RedisError);
  EXPECT_THROW(parse_redis_url("redis://x:port"), RedisError);
  EXPECT_THROW(parse_redis_url("redis://:1"), RedisError);
}

TEST(RedisClient, AnUnreachableServerIsAClearError) {
  try {
    RedisClient client(parse_redis_url("redis://127.0.0.1:1"), 500ms);
    FAIL() << "connected to port 1";
  } catch (const RedisError& error) {
    EXPECT_NE(std::string(error.what()).find("127.0.0.1:1"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("cannot connect"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace parlor::server
