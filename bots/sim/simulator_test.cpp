// parlor-sim's engine: the same config gives the same report; the JSON-free random path plays
// exactly the games the prompt path plays; the quality measures and intervals on hand-made data.
#include "bots/sim/simulator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "bots/sim/quality.h"

namespace parlor::sim {
namespace {

SimReport run(SimConfig config) {
  std::string error;
  auto report = run_simulation(config, error);
  EXPECT_TRUE(report) << error;
  return report ? *report : SimReport{};
}

SimConfig config_for(const char* kind, std::int64_t games, std::vector<std::string> bots) {
  SimConfig config;
  config.kind = kind;
  config.games = games;
  config.bots = std::move(bots);
  config.seed = 7;
  return config;
}

TEST(Simulator, SameSeedSameReport) {
  for (const char* kind : {"bigtwo", "spades", "bidwhist", "agram", "splendor"}) {
    SimConfig config = config_for(kind, 20, {"greedy", "random"});
    config.duplicate = true;
    config.points = true;
    EXPECT_EQ(report_to_json(run(config)).dump(), report_to_json(run(config)).dump()) << kind;
    EXPECT_EQ(report_to_text(run(config)), report_to_text(run(config))) << kind;
  }
}

TEST(Simulator, DifferentSeedDifferentGames) {
  SimConfig a = config_for("bigtwo", 200, {"random"});
  SimConfig b = a;
  b.seed = 8;
  EXPECT_NE(report_to_json(run(a)).dump(), report_to_json(run(b)).dump());
}

TEST(Simulator, FastRandomPathPlaysTheSameGamesAsPrompts) {
  SimConfig fast = config_for("bigtwo", 300, {"random", "greedy", "random", "random"});
  SimConfig slow = fast;
  slow.fast_random = false;
  EXPECT_EQ(report_to_json(run(fast)).dump(), report_to_json(run(slow)).dump());
}

TEST(Simulator, CountsEveryGameAndSeat) {
  SimConfig config = config_for("agram", 100, {"greedy", "random"});
  config.seats = 3;  // "greedy, random" padded to three seats
  const SimReport report = run(config);
  ASSERT_EQ(report.seats, 3);
  EXPECT_EQ(report.bots, (std::vector<std::string>{"greedy", "random", "random"}));
  std::int64_t wins = 0;
  for (const Rate& r : report.seat_rates) wins += r.wins;
  EXPECT_EQ(wins, 100);  // Agram has exactly one winner
  ASSERT_EQ(report.strategy_rates.size(), 2U);
  EXPECT_EQ(report.strategy_rates[0].rate.trials, 100);
  EXPECT_EQ(report.strategy_rates[1].rate.trials, 200);
  EXPECT_DOUBLE_EQ(report.moves_per_game, 18);  // six tricks of three cards
}

TEST(Simulator, PairedPointsPerDeal) {
  // Greedy against random in Spades, partners against partners: 20 deals, each played with
  // the teams one way and then the other, and one game of a 21st deal that the paired measure
  // leaves out.
  SimConfig config = config_for("spades", 41, {"greedy", "random", "greedy", "random"});
  config.duplicate = true;
  config.points = true;
  config.options = {{"target", 100}};
  const SimReport report = run(config);
  ASSERT_TRUE(report.paired);
  EXPECT_EQ(report.paired->first, "greedy");
  EXPECT_EQ(report.paired->second, "random");
  EXPECT_EQ(report.games_per_deal, 2);
  EXPECT_EQ(report.paired->difference.samples, 20);
  ASSERT_EQ(report.strategy_points.size(), 2U);
  EXPECT_EQ(report.strategy_points[0].samples, 41);
  EXPECT_EQ(report.strategy_points[1].samples, 41);
  // Random overbids, underbids and throws tricks away: greedy's side is far ahead on every deal.
  EXPECT_GT(report.paired->difference.low, 0);
  EXPECT_LE(report.paired->difference.low, report.paired->difference.mean);
  EXPECT_GE(report.paired->difference.high, report.paired->difference.mean);

  // The same games counted to a whole number of deals: both strategies sit in every game, so
  // the paired mean is the difference of the strategies' mean points.
  config.games = 40;
  const SimReport whole = run(config);
  ASSERT_TRUE(whole.paired);
  EXPECT_NEAR(whole.paired->difference.mean,
              whole.strategy_points[0].mean - whole.strategy_points[1].mean, 1e-9);
  EXPECT_DOUBLE_EQ(whole.paired->difference.mean, report.paired->difference.mean);

  // No pairing without duplicate deals, or with three strategies.
  config.duplicate = false;
  EXPECT_FALSE(run(config).paired);
  config.duplicate = true;
  config.bots = {"greedy", "random", "ismcts:2"};
  config.games = 8;
  EXPECT_FALSE(run(config).paired);
}

TEST(Simulator, RotationPeriod) {
  EXPECT_EQ(rotation_period({"a", "b", "a", "b"}), 2);
  EXPECT_EQ(rotation_period({"a", "b", "b", "b"}), 4);
  EXPECT_EQ(rotation_period({"a", "a", "a"}), 1);
  EXPECT_EQ(rotation_period({"a", "b"}), 2);
  EXPECT_EQ(rotation_period({"a", "b", "a"}), 3);
  EXPECT_EQ(rotation_period({"a", "b", "c", "a", "b", "c"}), 3);
}

TEST(Simulator, DuplicateDealsPlayEachDistinctSeatingOnce) {
  // One greedy against three random: four seatings a deal. Two of each, alternating: two.
  SimConfig config = config_for("agram", 8, {"greedy", "random", "random", "random"});
  config.duplicate = true;
  EXPECT_EQ(run(config).games_per_deal, 4);
  config.bots = {"greedy", "random", "greedy", "random"};
  EXPECT_EQ(run(config).games_per_deal, 2);
  config.bots = {"greedy"};
  config.seats = 4;
  EXPECT_EQ(run(config).games_per_deal, 1);
}

TEST(Simulator, RejectsBadConfigs) {
  std::string error;
  EXPECT_FALSE(run_simulation(config_for("chess", 1, {"random"}), error));
  EXPECT_NE(error.find("unknown game"), std::string::npos);
  EXPECT_FALSE(run_simulation(config_for("bigtwo", 1, {"minimax"}), error));
  EXPECT_NE(error.find("no strategy"), std::string::npos);
  SimConfig too_many = config_for("spades", 1, {"random", "random", "random", "random", "random"});
  EXPECT_FALSE(run_simulation(too_many, error));
  SimConfig bad_options = config_for("bigtwo", 1, {"random"});
  bad_options.options = {{"deals", 0}};
  EXPECT_FALSE(run_simulation(bad_options, error));
}

TEST(Quality, MeasuresAHandMadeTrajectory) {
  // Two sides; side 1 leads early, side 0 overtakes and wins.
  Trajectory t;
  t.reset(2);
  t.add_step({0, 0});  // level
  t.add_step({0, 2});  // side 1 leads by the whole range
  t.add_step({1, 2});  // still side 1
  t.add_step({3, 2});  // side 0 takes the lead: one lead change
  for (double b : {6.0, 6.0, 3.0, 3.0, 2.0, 2.0}) t.add_decision(b);
  const GameQuality q = measure_game(t, {true, false});
  EXPECT_DOUBLE_EQ(q.lead_changes, 1);
  // Winner's deficit share per step: 0 (level), 1, 1, 0 -> 2 / 4.
  EXPECT_DOUBLE_EQ(q.drama, 0.5);
  // Leader's cushion share: 0, 1, 1, 1 -> 3 / 4.
  EXPECT_DOUBLE_EQ(q.security, 0.75);
  // Final order (0 above 1) already true: -, no, no, yes -> 1 / 4.
  EXPECT_DOUBLE_EQ(q.order, 0.25);
  // Final gap 1 over the largest standing 3.
  EXPECT_DOUBLE_EQ(q.spread, 1.0 / 3);
  // First third 6+6, last third 2+2.
  EXPECT_DOUBLE_EQ(q.convergence, 1 - 4.0 / 12);
}

TEST(Quality, Fairness) {
  EXPECT_DOUBLE_EQ(fairness({25, 25, 25, 25}), 1);
  EXPECT_DOUBLE_EQ(fairness({100, 0, 0, 0}), 0);
  EXPECT_NEAR(fairness({50, 50, 0, 0}), 1 - (0.25 + 0.25 + 0.25 + 0.25) * 4 / 6.0, 1e-12);
}

TEST(Quality, WilsonInterval) {
  const Rate r = make_rate(50, 100);
  EXPECT_DOUBLE_EQ(r.rate, 0.5);
  EXPECT_NEAR(r.low, 0.4038, 1e-4);
  EXPECT_NEAR(r.high, 0.5962, 1e-4);
  const Rate none = make_rate(0, 10);
  EXPECT_DOUBLE_EQ(none.low, 0);
  EXPECT_GT(none.high, 0.25);
}

TEST(Quality, StudentT) {
  // Table values of the 97.5th percentile.
  EXPECT_NEAR(t_quantile_975(1), 12.706, 1e-3);
  EXPECT_NEAR(t_quantile_975(2), 4.303, 1e-3);
  EXPECT_NEAR(t_quantile_975(3), 3.182, 1e-3);
  EXPECT_NEAR(t_quantile_975(4), 2.776, 1e-3);
  EXPECT_NEAR(t_quantile_975(5), 2.571, 1e-3);
  EXPECT_NEAR(t_quantile_975(10), 2.228, 1e-3);
  EXPECT_NEAR(t_quantile_975(30), 2.042, 1e-3);
  EXPECT_NEAR(t_quantile_975(1000), 1.962, 1e-3);
}

TEST(Quality, MeanInterval) {
  // Mean 3, sample standard deviation sqrt(2.5), standard error sqrt(0.5), t(4) = 2.776.
  const MeanInterval m = make_mean_interval({1, 2, 3, 4, 5});
  EXPECT_EQ(m.samples, 5);
  EXPECT_DOUBLE_EQ(m.mean, 3);
  EXPECT_NEAR(m.high - m.mean, 2.776 * std::sqrt(0.5), 1e-3);
  EXPECT_NEAR(m.mean - m.low, m.high - m.mean, 1e-12);
  const MeanInterval one = make_mean_interval({4});
  EXPECT_DOUBLE_EQ(one.low, 4);
  EXPECT_DOUBLE_EQ(one.high, 4);
  EXPECT_EQ(make_mean_interval({}).samples, 0);
}

}  // namespace
}  // namespace parlor::sim
