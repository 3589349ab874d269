#include "bots/sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <memory>

#include "bots/sim/standings.h"
#include "bots/strategy.h"
#include "games/registry.h"

namespace parlor::sim {
namespace {

constexpr std::int64_t kMaxMovesPerGame = 200000;  // a game that long is an engine or bot bug

struct Totals {
  std::vector<std::int64_t> seat_wins;
  std::vector<std::int64_t> strategy_wins;
  std::vector<std::int64_t> strategy_trials;
  std::int64_t moves = 0;
  std::int64_t decisions = 0;
  double legal_moves = 0;
  GameQuality quality_sum;
  std::vector<ThinkTime> think;  // per strategy name
  // Per game, per strategy: the mean final standing of the sides at its seats (NaN: not seated).
  std::vector<std::vector<double>> points;
};

struct Table {
  std::vector<std::unique_ptr<bots::Strategy>> strategies;  // per listed seat
  std::vector<int> strategy_index;                          // per listed seat -> name index
  std::vector<std::string> names;                           // distinct, in order of appearance
  bool observed = false;  // some strategy reads the events (no fast path: it skips them)
  int period = 1;         // rotation_period of the listed seats
};

std::optional<Table> make_table(const std::string& kind, const std::vector<std::string>& bots,
                                std::string& error) {
  Table table;
  for (const std::string& name : bots) {
    auto strategy = bots::make_strategy(name, kind);
    if (!strategy) {
      error = "no strategy \"" + name + "\" for " + kind + " (known:";
      for (const auto& known : bots::strategy_names(kind)) error += " " + known;
      error += ")";
      return std::nullopt;
    }
    table.observed = table.observed || strategy->observes();
    table.strategies.push_back(std::move(strategy));
    std::size_t index = 0;
    while (index < table.names.size() && table.names[index] != name) ++index;
    if (index == table.names.size()) table.names.push_back(name);
    table.strategy_index.push_back(static_cast<int>(index));
  }
  return table;
}

// Plays one game; returns false with `error` set when a strategy's move was rejected.
bool play_game(Game& game, Table& table, const GameProbe& probe, const SimConfig& config,
               std::int64_t game_number, Rng& rng, Trajectory& trajectory, Totals& totals,
               std::string& error) {
  const int seats = game.seat_count();
  const int sides = probe.sides(seats);
  std::vector<double> standing(static_cast<std::size_t>(sides), 0.0);
  trajectory.reset(sides);
  const bool rotate = config.rotate || config.duplicate;
  const int period = config.duplicate ? table.period : seats;
  const int shift = rotate ? static_cast<int>(game_number % period) : 0;
  auto listed_seat = [&](Seat seat) { return static_cast<std::size_t>((seat + shift) % seats); };

  for (auto& strategy : table.strategies) strategy->reset();
  std::int64_t moves = 0;
  while (!game.finished()) {
    const std::vector<Seat> acting = game.to_act();
    if (acting.empty() || ++moves > kMaxMovesPerGame) {
      error = "game " + std::to_string(game_number) + " stalled after " + std::to_string(moves) +
              " moves";
      return false;
    }
    const Seat seat = acting.front();
    if (config.before_decision) config.before_decision(game, seat, game_number);
    bots::Strategy& strategy = *table.strategies[listed_seat(seat)];
    std::optional<int> fast;
    if (config.fast_random && !table.observed && !strategy.reads_view())
      fast = probe.fast_random_move(game, seat, rng);
    if (fast) {
      trajectory.add_decision(*fast);
    } else {
      const Json prompt = game.prompt(seat);
      const Json view = strategy.reads_view() ? game.view(seat) : Json();
      // CPU time, not wall time: what a decision costs one core, however loaded the machine.
      const std::clock_t started = std::clock();
      const Json move = strategy.choose(view, prompt, rng);
      const double took_ms = 1000.0 * static_cast<double>(std::clock() - started) / CLOCKS_PER_SEC;
      ThinkTime& think =
          totals.think[static_cast<std::size_t>(table.strategy_index[listed_seat(seat)])];
      ++think.decisions;
      think.total_ms += took_ms;
      think.max_ms = std::max(think.max_ms, took_ms);
      const MoveResult result = game.apply(seat, move);
      if (!result.ok()) {
        error = "game " + std::to_string(game_number) + ": strategy " +
                std::string(strategy.name()) + " at seat " + std::to_string(seat) + " played " +
                move.dump() + ", rejected: " + result.code() + " (" + result.message() + ")";
        return false;
      }
      trajectory.add_decision(prompt_branching(prompt));
      if (table.observed) {
        for (auto& observer : table.strategies) observer->observe(result.events());
      }
    }
    probe.standings(game, standing);
    trajectory.add_step(standing);
  }

  // Winners, per seat and per side.
  std::vector<bool> seat_won(static_cast<std::size_t>(seats), false);
  std::vector<bool> side_won(static_cast<std::size_t>(sides), false);
  const Json result = game.result();
  if (const auto winners = result.find("winners"); winners != result.end() && winners->is_array()) {
    for (const Json& w : *winners) {
      if (!w.is_number_integer() || w.get<int>() < 0 || w.get<int>() >= seats) continue;
      seat_won[w.get<std::size_t>()] = true;
      side_won[static_cast<std::size_t>(probe.side_of(w.get<Seat>()))] = true;
    }
  }
  for (Seat seat = 0; seat < seats; ++seat) {
    const auto s = static_cast<std::size_t>(seat);
    const auto strategy = static_cast<std::size_t>(table.strategy_index[listed_seat(seat)]);
    ++totals.strategy_trials[strategy];
    if (seat_won[s]) {
      ++totals.seat_wins[s];
      ++totals.strategy_wins[strategy];
    }
  }
  if (config.points) {
    std::vector<double> sum(table.names.size(), 0.0);
    std::vector<int> count(table.names.size(), 0);
    for (Seat seat = 0; seat < seats; ++seat) {
      const auto strategy = static_cast<std::size_t>(table.strategy_index[listed_seat(seat)]);
      sum[strategy] += standing[static_cast<std::size_t>(probe.side_of(seat))];
      ++count[strategy];
    }
    std::vector<double>& points = totals.points.emplace_back();
    for (std::size_t i = 0; i < sum.size(); ++i) {
      points.push_back(count[i] > 0 ? sum[i] / count[i] : std::nan(""));
    }
  }
  totals.moves += moves;
  totals.decisions += static_cast<std::int64_t>(trajectory.branching().size());
  for (double b : trajectory.branching()) totals.legal_moves += b;
  const GameQuality q = measure_game(trajectory, side_won);
  totals.quality_sum.lead_changes += q.lead_changes;
  totals.quality_sum.drama += q.drama;
  totals.quality_sum.security += q.security;
  totals.quality_sum.order += q.order;
  totals.quality_sum.spread += q.spread;
  totals.quality_sum.convergence += q.convergence;
  return true;
}

}  // namespace

int rotation_period(const std::vector<std::string>& bots) {
  const auto n = static_cast<int>(bots.size());
  for (int p = 1; p < n; ++p) {
    if (n % p != 0) continue;
    bool same = true;
    for (int s = 0; s < n && same; ++s) {
      same = bots[static_cast<std::size_t>(s)] == bots[static_cast<std::size_t>((s + p) % n)];
    }
    if (same) return p;
  }
  return std::max(n, 1);
}

std::uint64_t mix_seed(std::uint64_t value) {
  value += 0x9E3779B97F4A7C15ULL;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

double prompt_branching(const Json& prompt) {
  if (const auto legal = prompt.find("legal"); legal != prompt.end() && legal->is_array()) {
    return static_cast<double>(legal->size());
  }
  if (const auto choose = prompt.find("choose"); choose != prompt.end() && choose->is_object()) {
    const double n = static_cast<double>(choose->value("from", Json::array()).size());
    const double k = choose->value("count", 0.0);
    double ways = 1;
    for (double i = 0; i < k; ++i) ways = ways * (n - i) / (i + 1);
    return std::round(ways);
  }
  return 0;
}

double t_quantile_975(std::int64_t df) {
  if (df <= 0) return std::numeric_limits<double>::infinity();
  // Table values up to four degrees of freedom; beyond, the Cornish-Fisher expansion of t about
  // the normal quantile, within 0.001 of the table from five on.
  if (df == 1) return 12.706204736174698;
  if (df == 2) return 4.302652729749464;
  if (df == 3) return 3.182446305284263;
  if (df == 4) return 2.776445105197793;
  constexpr double z = 1.959963984540054;
  const auto n = static_cast<double>(df);
  const double z3 = z * z * z;
  const double z5 = z3 * z * z;
  const double z7 = z5 * z * z;
  const double z9 = z7 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n * n * n * n);
}

MeanInterval make_mean_interval(const std::vector<double>& samples) {
  MeanInterval m;
  m.samples = static_cast<std::int64_t>(samples.size());
  if (samples.empty()) return m;
  double sum = 0;
  for (double x : samples) sum += x;
  m.mean = sum / static_cast<double>(samples.size());
  m.low = m.mean;
  m.high = m.mean;
  if (samples.size() < 2) return m;
  double squares = 0;
  for (double x : samples) squares += (x - m.mean) * (x - m.mean);
  const auto n = static_cast<double>(samples.size());
  const double half = t_quantile_975(m.samples - 1) * std::sqrt(squares / (n - 1) / n);
  m.low = m.mean - half;
  m.high = m.mean + half;
  return m;
}

Rate make_rate(std::int64_t wins, std::int64_t trials) {
  Rate r;
  r.wins = wins;
  r.trials = trials;
  if (trials <= 0) return r;
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(wins) / n;
  constexpr double z = 1.959963984540054;  // 97.5th percentile of the normal distribution
  const double denominator = 1 + z * z / n;
  const double centre = (p + z * z / (2 * n)) / denominator;
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator;
  r.rate = p;
  r.low = std::max(0.0, centre - half);
  r.high = std::min(1.0, centre + half);
  return r;
}

std::optional<SimReport> run_simulation(const SimConfig& config, std::string& error) {
  const GameInfo* info = find_game(config.kind);
  if (!info) {
    error = "unknown game \"" + config.kind + "\"";
    return std::nullopt;
  }
  if (config.games <= 0) {
    error = "--games must be positive";
    return std::nullopt;
  }
  if (config.bots.empty()) {
    error = "--bots needs at least one strategy";
    return std::nullopt;
  }
  int seats = config.seats;
  if (seats == 0) {
    // As many seats as bots listed, when the game can seat that many; else its default.
    const auto listed = static_cast<int>(config.bots.size());
    seats = listed > 1 && listed >= info->min_seats && listed <= info->max_seats
                ? listed
                : info->default_seats;
  }
  if (static_cast<int>(config.bots.size()) > seats) {
    error =
        std::to_string(config.bots.size()) + " bots listed for " + std::to_string(seats) + " seats";
    return std::nullopt;
  }
  std::vector<std::string> bots = config.bots;
  bots.resize(static_cast<std::size_t>(seats), config.bots.back());

  // Validate options and seats once; every game is then dealt from the normalized options.
  Json normalized;
  if (!create_game(*info, config.options, seats, config.seed, &normalized, error)) {
    return std::nullopt;
  }
  auto table = make_table(config.kind, bots, error);
  if (!table) return std::nullopt;
  table->period = rotation_period(bots);
  const auto probe = make_probe(config.kind);

  Totals totals;
  totals.seat_wins.assign(static_cast<std::size_t>(seats), 0);
  totals.strategy_wins.assign(table->names.size(), 0);
  totals.strategy_trials.assign(table->names.size(), 0);
  for (const std::string& name : table->names) totals.think.push_back({name, 0, 0, 0});
  Trajectory trajectory;
  for (std::int64_t i = 0; i < config.games; ++i) {
    const std::int64_t deal = config.duplicate ? i / table->period : i;
    const std::uint64_t game_seed =
        mix_seed(config.seed ^ mix_seed(static_cast<std::uint64_t>(deal)));
    const auto game = info->create(normalized, seats, game_seed);
    Rng rng(mix_seed(game_seed));
    if (!play_game(*game, *table, *probe, config, i, rng, trajectory, totals, error)) {
      return std::nullopt;
    }
  }

  SimReport report;
  report.kind = config.kind;
  report.seats = seats;
  report.options = normalized;
  report.seed = config.seed;
  report.games = config.games;
  report.bots = bots;
  report.rotate = config.rotate || config.duplicate;
  report.duplicate = config.duplicate;
  report.games_per_deal = config.duplicate ? table->period : 1;
  report.think_times = totals.think;
  for (auto wins : totals.seat_wins) report.seat_rates.push_back(make_rate(wins, config.games));
  for (std::size_t i = 0; i < table->names.size(); ++i) {
    report.strategy_rates.push_back(
        {table->names[i], make_rate(totals.strategy_wins[i], totals.strategy_trials[i])});
  }
  const auto games = static_cast<double>(config.games);
  report.decisions = totals.decisions;
  report.moves_per_game = static_cast<double>(totals.moves) / games;
  report.branching =
      totals.decisions > 0 ? totals.legal_moves / static_cast<double>(totals.decisions) : 0;
  report.quality = totals.quality_sum;
  report.quality.lead_changes /= games;
  report.quality.drama /= games;
  report.quality.security /= games;
  report.quality.order /= games;
  report.quality.spread /= games;
  report.quality.convergence /= games;
  report.fairness = fairness(totals.seat_wins);
  if (config.points) {
    report.points = true;
    for (std::size_t i = 0; i < table->names.size(); ++i) {
      std::vector<double> samples;
      for (const auto& game : totals.points) {
        if (!std::isnan(game[i])) samples.push_back(game[i]);
      }
      report.strategy_points.push_back(make_mean_interval(samples));
    }
    if (config.duplicate && table->names.size() == 2) {
      // One sample per deal played from every seat; a last deal cut short by --games is left out.
      std::vector<double> per_deal;
      const auto period = static_cast<std::size_t>(table->period);
      for (std::size_t first = 0; first + period <= totals.points.size(); first += period) {
        double sum = 0;
        for (std::size_t g = first; g < first + period; ++g) {
          sum += totals.points[g][0] - totals.points[g][1];
        }
        per_deal.push_back(sum / static_cast<double>(period));
      }
      report.paired = PairedPoints{table->names[0], table->names[1], make_mean_interval(per_deal)};
    }
  }
  return report;
}

}  // namespace parlor::sim
