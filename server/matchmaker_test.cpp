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

Matchmaker::Wish rated(const std::string& kind, int seats, int teams = 0) {
  return Matchmaker::Wish{find_game(kind), seats, Json::object(), /*rated=*/true, teams};
}

// The bands of these tests: 100 either side at first, 10 more each second, at most 400.
const Matchmaker::RatingBand kBand{100, 10, 400};

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

TEST(Matchmaker, RatedPlayersFarApartWaitUntilTheBandHasWidenedEnough) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), rated("bigtwo", 2), t0, 1500);
  matchmaker.enqueue(person("b"), rated("bigtwo", 2), t0 + 5s, 1800);
  EXPECT_TRUE(matchmaker.take_matches(t0 + 5s).empty()) << "300 apart, a band of 150";
  EXPECT_TRUE(matchmaker.take_matches(t0 + 19s).empty()) << "a's band is 290";
  const auto standings = matchmaker.standings(t0 + 19s);
  ASSERT_EQ(standings.size(), 2U);
  EXPECT_EQ(standings[1].player->id(), "b");
  EXPECT_EQ(standings[1].position, 2);
  EXPECT_EQ(standings[1].waiting, 2);
  EXPECT_EQ(standings[1].estimate, 0ms) << "never filled with bots";
  const auto matches = matchmaker.take_matches(t0 + 20s);
  ASSERT_EQ(matches.size(), 1U) << "a's band reaches 300 after 20 s";
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(matches[0].bots, 0);
  EXPECT_TRUE(matchmaker.standings(t0 + 20s).empty());
}

TEST(Matchmaker, TheBandStopsWideningAtItsMaximum) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), rated("bigtwo", 2), t0, 1000);
  matchmaker.enqueue(person("b"), rated("bigtwo", 2), t0, 1401);
  EXPECT_TRUE(matchmaker.take_matches(t0 + 1h).empty()) << "401 apart, a band of 400 at most";
  EXPECT_EQ(matchmaker.standings(t0 + 1h).size(), 2U);
}

TEST(Matchmaker, CloseRatingsMatchAtOnceAndTheBandPassesOverPlayersOutsideIt) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), rated("bigtwo", 2), t0, 1500);
  matchmaker.enqueue(person("b"), rated("bigtwo", 2), t0, 2100);
  matchmaker.enqueue(person("c"), rated("bigtwo", 2), t0, 1580);
  matchmaker.enqueue(person("d"), rated("bigtwo", 2), t0, 2050);
  const auto matches = matchmaker.take_matches(t0);
  ASSERT_EQ(matches.size(), 2U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(ids(matches[1].players), (std::vector<std::string>{"b", "d"}));
}

TEST(Matchmaker, ABandTakesItsPlayersOldestFirst) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), rated("bigtwo", 2), t0, 1500);
  matchmaker.enqueue(person("b"), rated("bigtwo", 2), t0 + 1s, 1590);
  matchmaker.enqueue(person("c"), rated("bigtwo", 2), t0 + 2s, 1500);
  const auto matches = matchmaker.take_matches(t0 + 2s);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "b"}))
      << "b waited longer than c, who has a's very rating";
}

TEST(Matchmaker, ARatedPartnershipTableIsSeatedWithTheTeamsAsEvenAsCanBe) {
  Matchmaker matchmaker(0ms, Matchmaker::RatingBand{100, 10, 2000});
  const auto t0 = Clock::now();
  const std::pair<const char*, double> queue[] = {
      {"a", 2000}, {"b", 1000}, {"c", 1600}, {"d", 1400}};
  for (const auto& [id, rating] : queue) {
    matchmaker.enqueue(person(id), rated("spades", 4, 2), t0, rating);
  }
  const auto matches = matchmaker.take_matches(t0 + 1h);
  ASSERT_EQ(matches.size(), 1U);
  // Seats 0 and 2 against 1 and 3: 2000 + 1000 against 1600 + 1400.
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "c", "b", "d"}));
}

TEST(Matchmaker, AnEvenPartnershipTableKeepsTheQueuesOrder) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  const std::pair<const char*, double> queue[] = {
      {"a", 1550}, {"b", 1500}, {"c", 1450}, {"d", 1500}};
  for (const auto& [id, rating] : queue) {
    matchmaker.enqueue(person(id), rated("spades", 4, 2), t0, rating);
  }
  const auto matches = matchmaker.take_matches(t0);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "b", "c", "d"}))
      << "a and c make 3000, as b and d do: the queue's order is as even as any";
}

TEST(Matchmaker, UnratedQueuesIgnoreRatingsAndTeams) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  const std::pair<const char*, double> queue[] = {
      {"a", 2000}, {"b", 1000}, {"c", 1600}, {"d", 1400}};
  for (const auto& [id, rating] : queue) {
    Matchmaker::Wish unrated = rated("spades", 4, 2);
    unrated.rated = false;
    matchmaker.enqueue(person(id), unrated, t0, rating);
  }
  const auto matches = matchmaker.take_matches(t0);
  ASSERT_EQ(matches.size(), 1U) << "1000 apart, at once";
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(Matchmaker, ARatedPlayerGetsBotsAfterItsOwnWaitWithThePlayersInItsBand) {
  Matchmaker matchmaker(10s, kBand);
  const auto t0 = Clock::now();
  matchmaker.enqueue(person("a"), rated("bigtwo", 4), t0, 1500);
  matchmaker.enqueue(person("b"), rated("bigtwo", 4), t0 + 4s, 2500);
  matchmaker.enqueue(person("c"), rated("bigtwo", 4), t0 + 6s, 1650);
  auto standings = matchmaker.standings(t0 + 6s);
  ASSERT_EQ(standings.size(), 3U);
  EXPECT_EQ(standings[0].estimate, 4s);
  EXPECT_EQ(standings[1].estimate, 8s) << "b is in nobody's band: its own wait counts";
  EXPECT_EQ(standings[2].estimate, 10s);
  EXPECT_TRUE(matchmaker.take_matches(t0 + 9s).empty());
  auto matches = matchmaker.take_matches(t0 + 10s);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"a", "c"}))
      << "a's band is 200 after 10 s";
  EXPECT_EQ(matches[0].bots, 2);
  standings = matchmaker.standings(t0 + 10s);
  ASSERT_EQ(standings.size(), 1U);
  EXPECT_EQ(standings[0].player->id(), "b");
  EXPECT_EQ(standings[0].position, 1);
  EXPECT_EQ(standings[0].estimate, 4s);
  matches = matchmaker.take_matches(t0 + 14s);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"b"}));
  EXPECT_EQ(matches[0].bots, 3);
}

TEST(Matchmaker, ACancelledRatedPlayerIsNotSeated) {
  Matchmaker matchmaker(0ms, kBand);
  const auto t0 = Clock::now();
  auto a = person("a");
  ASSERT_TRUE(matchmaker.enqueue(a, rated("bigtwo", 2), t0, 1500));
  ASSERT_TRUE(matchmaker.wish_of(*a));
  EXPECT_TRUE(matchmaker.wish_of(*a)->rated);
  EXPECT_TRUE(matchmaker.cancel(*a));
  EXPECT_FALSE(matchmaker.cancel(*a));
  matchmaker.enqueue(person("b"), rated("bigtwo", 2), t0, 1500);
  EXPECT_TRUE(matchmaker.take_matches(t0).empty());
  matchmaker.enqueue(person("c"), rated("bigtwo", 2), t0, 1510);
  const auto matches = matchmaker.take_matches(t0);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(ids(matches[0].players), (std::vector<std::string>{"b", "c"}));
}

}  // namespace
}  // namespace parlor::server
