// Identity over time: which players an eviction forgets (away, idle long enough, in no room)
// and which it keeps; a replaced token; the last-seen time a connection moves.
#include "server/identity.h"

#include <gtest/gtest.h>

namespace parlor::server {
namespace {

class Silent : public Connection {
 public:
  void send(Frame) override {}
  void close(std::uint16_t, std::string) override {}
};

constexpr std::int64_t kIdleMs = 60'000;

TEST(IdentityEviction, AnIdlePlayerInNoRoomIsForgottenWithItsToken) {
  Identity identity;
  std::string token;
  auto player = identity.create("ann", token);
  const std::int64_t seen = player->last_seen_ms();
  EXPECT_GT(seen, 0);

  EXPECT_EQ(identity.evict_idle(seen + kIdleMs, kIdleMs), 0u) << "idle exactly the period: kept";
  EXPECT_EQ(identity.size(), 1u);
  EXPECT_EQ(identity.evict_idle(seen + kIdleMs + 1, kIdleMs), 1u);
  EXPECT_EQ(identity.size(), 0u);
  EXPECT_EQ(identity.find(player->id()), nullptr);
  EXPECT_EQ(identity.resume(token), nullptr);
}

TEST(IdentityEviction, ConnectedSeatedAndWatchingPlayersAreKept) {
  Identity identity;
  std::string token;
  auto connected = identity.create("connected", token);
  auto seated = identity.create("seated", token);
  auto idle = identity.create("idle", token);
  auto connection = std::make_shared<Silent>();
  connected->attach(connection);
  seated->add_room("r1");
  const std::int64_t later = unix_now_ms() + 10 * kIdleMs;

  EXPECT_EQ(identity.evict_idle(later, kIdleMs), 1u);
  EXPECT_NE(identity.find(connected->id()), nullptr);
  EXPECT_NE(identity.find(seated->id()), nullptr);
  EXPECT_EQ(identity.find(idle->id()), nullptr);

  // Once it leaves its room and its connection ends, each is idle from then on.
  seated->remove_room("r1");
  ASSERT_TRUE(connected->detach(connection.get()));
  EXPECT_EQ(identity.evict_idle(unix_now_ms(), kIdleMs), 0u);
  EXPECT_EQ(identity.evict_idle(later, kIdleMs), 2u);
  EXPECT_EQ(identity.size(), 0u);
}

TEST(IdentityEviction, NoIdlePeriodNeverEvicts) {
  Identity identity;
  std::string token;
  identity.create("ann", token);
  EXPECT_EQ(identity.evict_idle(unix_now_ms() + 1'000'000'000, 0), 0u);
  EXPECT_EQ(identity.size(), 1u);
}

TEST(IdentityEviction, DetachMovesTheLastSeenTimeAndARestoredPlayerKeepsItsOwn) {
  Identity identity;
  auto restored = std::make_shared<Player>("p1", "old", Identity::hash_token("t"), 1000, 2000);
  identity.restore(restored);
  EXPECT_EQ(restored->last_seen_ms(), 2000);
  EXPECT_EQ(identity.evict_idle(2000 + kIdleMs + 1, kIdleMs), 1u);

  std::string token;
  auto player = identity.create("bo", token);
  auto connection = std::make_shared<Silent>();
  player->attach(connection);
  player->touch(player->last_seen_ms() + 5 * kIdleMs);
  const std::int64_t touched = player->last_seen_ms();
  ASSERT_TRUE(player->detach(connection.get()));
  EXPECT_EQ(player->last_seen_ms(), touched) << "a last-seen time never goes back";
  EXPECT_EQ(identity.evict_idle(touched + kIdleMs, kIdleMs), 0u);
  EXPECT_EQ(identity.evict_idle(touched + kIdleMs + 1, kIdleMs), 1u);
}

TEST(IdentityTokens, AReplacedTokenNoLongerResumesAndTheNewOneDoes) {
  Identity identity;
  std::string old_token;
  auto player = identity.create("ann", old_token);
  std::string new_token;
  identity.replace_token(player, new_token);
  EXPECT_NE(new_token, old_token);
  EXPECT_EQ(identity.resume(old_token), nullptr);
  EXPECT_EQ(identity.resume(new_token), player);
  EXPECT_EQ(player->token_hash(), Identity::hash_token(new_token));
  // The new token is forgotten with its player.
  EXPECT_EQ(identity.evict_idle(player->last_seen_ms() + kIdleMs + 1, kIdleMs), 1u);
  EXPECT_EQ(identity.resume(new_token), nullptr);
}

}  // namespace
}  // namespace parlor::server
