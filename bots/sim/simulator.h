// In-process self-play: many seeded games of one kind between bot strategies, and a report of
// win rates (with 95% confidence intervals), game length, branching factor, lead changes and
// the CardStock-style quality heuristics. No network, no threads, no clock: the same config
// gives the same report, bit for bit (parlor-sim prints timing separately, on stderr).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bots/sim/quality.h"
#include "games/core/game.h"

namespace parlor::sim {

struct SimConfig {
  std::string kind;
  std::int64_t games = 1000;
  // Strategy per seat; a shorter list is padded with its last entry.
  std::vector<std::string> bots = {"random"};
  std::uint64_t seed = 1;
  int seats = 0;  // 0: the number of bots listed if the game seats that many, else its default
  Json options = nullptr;
  // Rotate the assignment one seat per game, so each strategy plays every seat equally often.
  bool rotate = false;
  // Duplicate deals (implies rotate): each deal is played once per distinct seating, the bots
  // shifted one seat each time, so every strategy plays every hand dealt. That is once per
  // seat, or once per period of a bot list that repeats itself (ismcts,greedy,ismcts,greedy:
  // two), since shifting such a list by its period seats everyone as before and would only
  // replay the same game. Game i is dealt as game i / period would be without it.
  bool duplicate = false;
  // Also measure points (each side's final standing, standings.h) per strategy and, on
  // duplicate deals between exactly two strategies, the paired difference per deal.
  bool points = false;
  // Test seam: false sends `random` through views and prompts even where a JSON-free path
  // exists; both give the same games.
  bool fast_random = true;
  // Called before every decision with the true state, the seat to act and the game's number.
  // For offline measures that may look at everything (the quality report's meaningful-choice
  // sampling, quality_report.h); it is never handed to a strategy, which sees only its view.
  std::function<void(const Game& game, Seat seat, std::int64_t game_number)> before_decision;
};

// A win rate with its Wilson 95% confidence interval.
struct Rate {
  std::int64_t wins = 0;
  std::int64_t trials = 0;
  double rate = 0;
  double low = 0;
  double high = 0;
};
Rate make_rate(std::int64_t wins, std::int64_t trials);

// The smallest shift that maps `bots` onto itself (a divisor of its length; the length when
// none smaller does): how many distinct seatings rotating the list gives.
int rotation_period(const std::vector<std::string>& bots);

// SplitMix64: spreads consecutive numbers (games, samples) over unrelated seeds.
std::uint64_t mix_seed(std::uint64_t value);

// Legal moves a prompt offers: the `legal` list's length, or the number of `count`-subsets a
// `choose` prompt allows.
double prompt_branching(const Json& prompt);

// A mean with its 95% confidence interval (Student's t over the samples' spread).
struct MeanInterval {
  std::int64_t samples = 0;
  double mean = 0;
  double low = 0;
  double high = 0;
};
MeanInterval make_mean_interval(const std::vector<double>& samples);
// The 97.5th percentile of Student's t distribution with `df` degrees of freedom.
double t_quantile_975(std::int64_t df);

// Points on duplicate deals between two strategies: per deal, the mean over the deal's games of
// the first strategy's points minus the second's (each strategy's points in a game being the
// mean final standing of the sides it sat at), and the mean of those differences over deals.
// The deal's replays with the seats shifted cancel most of what the cards alone decide, so this
// tells small differences in play apart far sooner than win rates over games do.
struct PairedPoints {
  std::string first;
  std::string second;
  MeanInterval difference;  // over complete deals
};

struct StrategyRate {
  std::string name;
  Rate rate;
};

// CPU time a strategy spent choosing (std::clock: the process is single-threaded): for
// budgets, not part of the report (which depends only on the config).
struct ThinkTime {
  std::string name;
  std::int64_t decisions = 0;
  double total_ms = 0;
  double max_ms = 0;
};

struct SimReport {
  std::string kind;
  int seats = 0;
  Json options;  // normalized
  std::uint64_t seed = 0;
  std::int64_t games = 0;
  std::vector<std::string> bots;  // per seat (before rotation)
  bool rotate = false;
  bool duplicate = false;
  int games_per_deal = 1;  // with duplicate: the distinct seatings each deal is played at

  std::vector<Rate> seat_rates;  // per seat
  std::vector<StrategyRate> strategy_rates;
  bool points = false;                        // the next two were measured
  std::vector<MeanInterval> strategy_points;  // per strategy, over the games it sat in
  std::optional<PairedPoints> paired;         // duplicate deals between two strategies
  std::int64_t decisions = 0;
  double moves_per_game = 0;
  double branching = 0;                // legal moves per decision
  GameQuality quality;                 // per-game measures averaged over games
  double fairness = 0;                 // over seats
  std::vector<ThinkTime> think_times;  // per strategy; not in the report's text or JSON
};

// Runs the simulation; nullopt with a message in `error` on a bad config or a strategy that
// answered with an illegal move.
std::optional<SimReport> run_simulation(const SimConfig& config, std::string& error);

Json report_to_json(const SimReport& report);
// {"wins","trials","rate","ci95":[low,high]}, as the report writes every rate.
Json rate_to_json(const Rate& rate);
std::string report_to_text(const SimReport& report);

}  // namespace parlor::sim
