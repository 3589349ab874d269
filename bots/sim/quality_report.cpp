#include "bots/sim/quality_report.h"

#include <memory>

#include "bots/sim/variants.h"
#include "games/registry.h"

namespace parlor::sim {
namespace {

// Picks `points` decisions uniformly among each game's decisions with a real choice (two or
// more legal moves) by reservoir sampling, keeping a copy of the true state at each; counts
// every decision and the forced ones on the way.
class DecisionSampler {
 public:
  DecisionSampler(std::int64_t games, int points, std::uint64_t seed)
      : games_(games), points_(points), seed_(seed) {}

  void see(const Game& game, Seat seat, std::int64_t game_number) {
    if (game_number >= games_) return;
    if (game_number != current_) start(game_number);
    ++decisions_;
    if (prompt_branching(game.prompt(seat)) < 2) {
      ++forced_;
      return;
    }
    ++eligible_;
    if (static_cast<int>(reservoir_.size()) < points_) {
      reservoir_.push_back({game.clone(), seat});
      return;
    }
    const auto slot = rng_->uniform(static_cast<std::uint64_t>(eligible_));
    if (slot < static_cast<std::uint64_t>(points_)) reservoir_[slot] = {game.clone(), seat};
  }

  struct Decision {
    std::unique_ptr<Game> state;
    Seat seat = 0;
  };
  // The decisions kept, game by game; call once, after the last game.
  std::vector<Decision>& finish() {
    flush();
    return kept_;
  }
  std::int64_t games_seen() const { return current_ + 1; }
  std::int64_t decisions() const { return decisions_; }
  std::int64_t forced() const { return forced_; }

 private:
  void start(std::int64_t game_number) {
    flush();
    current_ = game_number;
    eligible_ = 0;
    rng_ = std::make_unique<Rng>(
        mix_seed(seed_ ^ mix_seed(0x636f696365ULL + static_cast<std::uint64_t>(game_number))));
  }
  void flush() {
    for (Decision& d : reservoir_) kept_.push_back(std::move(d));
    reservoir_.clear();
  }

  std::int64_t games_;
  int points_;
  std::uint64_t seed_;
  std::int64_t current_ = -1;
  std::int64_t eligible_ = 0;
  std::int64_t decisions_ = 0;
  std::int64_t forced_ = 0;
  std::unique_ptr<Rng> rng_;
  std::vector<Decision> reservoir_;
  std::vector<Decision> kept_;
};

// `player` at every other seat and random at the rest, on duplicate deals: each deal is played
// once per seat with the players shifted, so both play every hand. Games round up to a whole
// number of deals.
SimConfig mixed_config(const SimConfig& base, const std::string& player, int seats,
                       std::int64_t games) {
  SimConfig config = base;
  config.bots.clear();
  for (int s = 0; s < seats; ++s) config.bots.push_back(s % 2 == 0 ? player : "random");
  config.duplicate = true;
  config.games = (games + seats - 1) / seats * seats;
  return config;
}

}  // namespace

SkillGap skill_gap(const SimReport& mixed, const std::string& player) {
  SkillGap gap;
  gap.player = player;
  gap.games = mixed.games;
  for (const StrategyRate& sr : mixed.strategy_rates) {
    if (sr.name == player) gap.player_rate = sr.rate;
    if (sr.name == "random") gap.random_rate = sr.rate;
  }
  gap.gap = gap.player_rate.rate - gap.random_rate.rate;
  const std::int64_t wins = gap.player_rate.wins + gap.random_rate.wins;
  if (wins > 0) {
    gap.share = static_cast<double>(gap.player_rate.wins) / static_cast<double>(wins);
  }
  return gap;
}

ChoiceSummary summarize_choices(const std::vector<ChoiceSample>& samples) {
  ChoiceSummary summary;
  std::int64_t differ = 0;
  for (const ChoiceSample& s : samples) {
    ++summary.sampled;
    summary.legal_moves += s.legal_moves;
    summary.tried += s.tried;
    summary.gap += s.best - s.worst;
    if (s.differs) ++differ;
  }
  if (summary.sampled > 0) {
    const auto n = static_cast<double>(summary.sampled);
    summary.legal_moves /= n;
    summary.tried /= n;
    summary.gap /= n;
  }
  summary.differs = make_rate(differ, summary.sampled);
  return summary;
}

std::string report_command(const ReportConfig& config) {
  std::string out = "parlor-sim --report --game " + config.kind;
  if (!config.variant.empty()) out += " --variant " + config.variant;
  if (!config.options.is_null() && !config.options.empty()) {
    out += " --options '" + config.options.dump() + "'";
  }
  out += " --games " + std::to_string(config.games) + " --search-games " +
         std::to_string(config.search_games) + " --search " + config.search + " --choice-games " +
         std::to_string(config.choice_games) + " --seed " + std::to_string(config.seed);
  return out;
}

std::string report_stem(const ReportConfig& config) {
  if (!config.variant.empty()) return config.kind + "-" + config.variant;
  if (!config.options.is_null() && !config.options.empty()) return config.kind + "-options";
  return config.kind;
}

std::optional<QualityReport> run_quality_report(const ReportConfig& config, std::string& error) {
  const GameInfo* info = find_game(config.kind);
  if (!info) {
    error = "unknown game \"" + config.kind + "\"";
    return std::nullopt;
  }
  const bots::IsmctsGame* judge = bots::find_ismcts_game(config.kind);
  if (!judge) {
    error = "no search player, so no quality report, for " + config.kind;
    return std::nullopt;
  }
  QualityReport report;
  report.config = config;
  report.config.progress = nullptr;
  report.name = info->name;
  Json options = config.options;
  if (!config.variant.empty()) {
    if (!options.is_null() && !options.empty()) {
      error = "--variant and --options cannot be combined";
      return std::nullopt;
    }
    const auto variants = named_variants(*info);
    const NamedVariant* variant = find_variant(variants, config.variant);
    if (!variant) {
      error = "no variant \"" + config.variant + "\" of " + config.kind + " (named variants:";
      for (const NamedVariant& v : variants) error += " " + v.name;
      error += variants.empty() ? " none)" : ")";
      return std::nullopt;
    }
    options = variant->options;
    report.variant_description = variant->description;
  }

  SimConfig base;
  base.kind = config.kind;
  base.seed = config.seed;
  base.options = options;
  auto run = [&](const SimConfig& sim, const std::string& label) -> std::optional<SimReport> {
    if (config.progress) config.progress(label);
    auto result = run_simulation(sim, error);
    if (!result) error = label + ": " + error;
    return result;
  };

  // Every seat one strategy: seat advantage and the shape of the games. The all-greedy run
  // also gives the decisions the meaningful-choice measure looks at.
  DecisionSampler sampler(config.choice_games, config.choice_points, config.seed);
  for (const std::string& player : {std::string("random"), std::string("greedy"), config.search}) {
    SimConfig sim = base;
    sim.bots = {player};
    sim.games = player == config.search ? config.search_games : config.games;
    if (player == "greedy") {
      sim.before_decision = [&sampler](const Game& game, Seat seat, std::int64_t number) {
        sampler.see(game, seat, number);
      };
    }
    auto result = run(sim, "every seat " + player);
    if (!result) return std::nullopt;
    report.same.push_back({player, std::move(*result)});
  }
  report.seats = report.same.front().report.seats;
  report.options = report.same.front().report.options;

  for (const std::string& player : {std::string("greedy"), config.search}) {
    const SimConfig sim = mixed_config(
        base, player, report.seats, player == config.search ? config.search_games : config.games);
    auto result = run(sim, player + " vs random");
    if (!result) return std::nullopt;
    report.skill.push_back(skill_gap(*result, player));
    report.mixed.push_back({player + " vs random", std::move(*result)});
  }

  if (config.progress) config.progress("meaningful choices");
  const std::unique_ptr<bots::Strategy> greedy =
      judge->greedy_playouts ? bots::make_strategy("greedy", config.kind) : nullptr;
  std::vector<ChoiceSample> samples;
  auto& decisions = sampler.finish();
  for (std::size_t i = 0; i < decisions.size(); ++i) {
    const std::uint64_t seed =
        mix_seed(config.seed ^ mix_seed(0x6d6f766573ULL + static_cast<std::uint64_t>(i)));
    samples.push_back(measure_choice(*decisions[i].state, decisions[i].seat, *judge, greedy.get(),
                                     config.choice, seed));
  }
  report.choices = summarize_choices(samples);
  report.choices.games = std::min(config.choice_games, sampler.games_seen());
  report.choices.decisions = sampler.decisions();
  report.choices.forced = sampler.forced();
  return report;
}

}  // namespace parlor::sim
