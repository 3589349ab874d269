// The matchmaker's queues without sockets or rooms: players and time go in, tables come out.
#include "server/matchmaker.h"

#include <gtest/gtest.h>

#include "games/registry.h"

namespace parlor::server {
namespace {

using namespace std::chrono_literals;
using Clock = Matchmaker::Clock;

std::shared_ptr<Player> person(const std::string& id) {
  return std::make_shared<Player>(id, id, TokenHash{});
}

Matchmaker::Wish wish(const std::string& kind, int seats, Json options = Json::object()) {
  return Matchmaker::Wish{find_game(kind), seats, std::move(options)};
}

std::vector<std::string> ids(const std::vector<std::shared_ptr<Player>>& players) {
  std::vector<std::string> out;
  for (const auto& p : players) out.push_back(p->id());
  return out;
}

TEST(Matchmaker, AFullQueueMakesATableInArrivalOrderAndOthersKeepWaiting) {
  Matchmaker matchmaker(0ms);
  const auto t0 = Clock::now();
  for (const char* id : {"a", "b", "c", "d", "e"}) {
    ASSERT_TRUE(matchmaker.enqueue(person(id), wish("bigtwo", 4), t0));
  }
  const auto matches = matchmaker.take_matches(t0);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(matches[0].bots, 0);
  const auto standings = matchmaker.standings(t0 + 1h);
  ASSERT_EQ(standings.size(), 1U);
  EXPECT_EQ(standings[0].player->id(), "e");
  EXPECT_EQ(standings[0].position, 1);
  EXPECT_EQ(standings[0].waiting, 1);
  EXPECT_EQ(standings[0].estimate, 0ms) << "never filled with bots";
  EXPECT_TRUE(matchmaker.take_matches(t0 + 1h).empty()) << "bots_after 0: no bots, ever";
}

TEST(Matchmaker, DifferentTablesNeverMixAndSameOptionsDo) {
  Matchmaker matchmaker(0ms);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), wish("bigtwo", 2), t0);
  matchmaker.enqueue(person("b"), wish("bigtwo", 3), t0);
  matchmaker.enqueue(person("c"), wish("spades", 4), t0);
  matchmaker.enqueue(person("d"), wish("bigtwo", 2, {{"deals", 3}}), t0);
  EXPECT_TRUE(matchmaker.take_matches(t0).empty());
  matchmaker.enqueue(person("e"), wish("bigtwo", 2, {{"deals", 3}}), t0);
  const auto matches = matchmaker.take_matches(t0);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(matches[0].wish.options, (Json{{"deals", 3}}));
}

TEST(Matchmaker, AfterTheWaitBotsFillTheSeatsOfEveryoneWaiting) {
  Matchmaker matchmaker(10s);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), wish("spades", 4), t0);
  matchmaker.enqueue(person("b"), wish("spades", 4), t0 + 4s);
  auto standings = matchmaker.standings(t0 + 4s);
  ASSERT_EQ(standings.size(), 2U);
  EXPECT_EQ(standings[1].position, 2);
  EXPECT_EQ(standings[1].waiting, 2);
  EXPECT_EQ(standings[1].estimate, 6s) << "the table opens when its first player has waited 10 s";
  EXPECT_TRUE(matchmaker.take_matches(t0 + 9s).empty());
  const auto matches = matchmaker.take_matches(t0 + 10s);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(matches[0].bots, 2);
  EXPECT_TRUE(matchmaker.standings(t0 + 10s).empty());
}

TEST(Matchmaker, APlayerWaitsOnceAndCanCancel) {
  Matchmaker matchmaker(10s);
  const auto t0 = Clock::now();
  auto a = person("a");
  ASSERT_TRUE(matchmaker.enqueue(a, wish("spades", 4), t0));
  EXPECT_FALSE(matchmaker.enqueue(a, wish("bigtwo", 4), t0)) << "already waiting elsewhere";
  ASSERT_TRUE(matchmaker.wish_of(*a));
  EXPECT_EQ(matchmaker.wish_of(*a)->game->kind, "spades");
  EXPECT_TRUE(matchmaker.cancel(*a));
  EXPECT_FALSE(matchmaker.cancel(*a));
  EXPECT_FALSE(matchmaker.wish_of(*a));
  EXPECT_TRUE(matchmaker.take_matches(t0 + 1h).empty()) << "a cancelled player is not seated";
  EXPECT_TRUE(matchmaker.enqueue(a, wish("bigtwo", 4), t0 + 1h));
}

}  // namespace
}  // namespace parlor::server
