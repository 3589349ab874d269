#include "games/core/replay.h"

#include <gtest/gtest.h>

#include <vector>

#include "games/core/rng.h"
#include "games/registry.h"

namespace parlor {
namespace {

// A random game of Big Two and its log, with a checkpoint after every move.
struct Played {
  std::unique_ptr<Game> game;
  std::vector<std::pair<Seat, Json>> moves;
  std::vector<std::uint64_t> hashes;

  std::vector<LoggedMove> log() const {
    std::vector<LoggedMove> out;
    for (std::size_t i = 0; i < moves.size(); ++i) {
      out.push_back({moves[i].first, &moves[i].second, hashes[i]});
    }
    return out;
  }
};

const GameInfo& bigtwo() { return *find_game("bigtwo"); }
Json options() {
  std::string error;
  return *normalize_options(bigtwo().options, Json::object(), error);
}

Played play(std::uint64_t seed, std::size_t max_moves) {
  Played out{bigtwo().create(options(), 4, seed), {}, {}};
  Rng rng(seed);
  while (!out.game->finished() && out.moves.size() < max_moves) {
    const Seat seat = out.game->to_act().front();
    const Json legal = out.game->legal_moves(seat);
    Json move = legal[rng.uniform(legal.size())];
    EXPECT_TRUE(out.game->apply(seat, move).ok());
    out.moves.emplace_back(seat, std::move(move));
    out.hashes.push_back(out.game->state_hash());
  }
  return out;
}

TEST(ReplayLog, AnIntactLogReachesTheSameStateAndShowsEachStep) {
  const Played played = play(5, 1000);
  ASSERT_TRUE(played.game->finished());
  auto game = bigtwo().create(options(), 4, 5);
  std::vector<std::size_t> steps;
  const auto log = played.log();
  EXPECT_EQ(replay_log(*game, log,
                       [&](std::size_t index, const MoveResult& result) {
                         EXPECT_TRUE(result.ok());
                         steps.push_back(index);
                       }),
            std::nullopt);
  EXPECT_EQ(game->state_hash(), played.game->state_hash());
  EXPECT_EQ(steps.size(), log.size());
  EXPECT_EQ(steps.back(), log.size() - 1);
}

TEST(ReplayLog, AnEmptyLogLeavesTheDeal) {
  auto game = bigtwo().create(options(), 4, 9);
  const std::uint64_t deal = game->state_hash();
  EXPECT_EQ(replay_log(*game, {}), std::nullopt);
  EXPECT_EQ(game->state_hash(), deal);
}

TEST(ReplayLog, ARefusedMoveIsReportedWithItsIndex) {
  Played played = play(6, 12);
  played.moves[7].second = Json{{"action", "play"}, {"cards", Json::array({"2S", "2S"})}};
  auto game = bigtwo().create(options(), 4, 6);
  const auto broken = replay_log(*game, played.log());
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->index, 7u);
  EXPECT_EQ(broken->why.rfind("is refused (", 0), 0u) << broken->why;
}

TEST(ReplayLog, ADifferentStateIsReportedAtItsCheckpoint) {
  const Played played = play(8, 20);
  auto log = played.log();
  log[12].state_hash = *log[12].state_hash ^ 1;
  auto game = bigtwo().create(options(), 4, 8);
  const auto broken = replay_log(*game, log);
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->index, 12u);
  EXPECT_EQ(broken->why, "reaches a different state");
  // The same log from another deal breaks at once.
  auto other = bigtwo().create(options(), 4, 9);
  EXPECT_TRUE(replay_log(*other, played.log()));
}

}  // namespace
}  // namespace parlor
