// parlor-sim --report: a game-quality report for one game under its default rules or one named
// variant, in the manner of the CardStock project's analyses. It runs five tournaments —
// every seat random, every seat greedy, every seat the search player (for seat advantage and
// the shape of the games), and greedy and the search player each against random on duplicate
// deals (for how much skill matters) — and samples decisions of the all-greedy games to ask
// whether the choice of move matters (choices.h). README.md beside this file defines every
// measure. The same config gives the same report, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bots/sim/choices.h"
#include "bots/sim/simulator.h"

namespace parlor::sim {

struct ReportConfig {
  std::string kind;
  std::string variant;             // a named variant (variants.h); empty: the default rules
  Json options = nullptr;          // other room options (not with a variant)
  std::int64_t games = 400;        // per tournament of random and greedy players
  std::int64_t search_games = 40;  // per tournament with the search player
  std::string search = "ismcts";   // the search player (its default budget: bots/README.md)
  std::uint64_t seed = 1;
  std::int64_t choice_games = 20;  // all-greedy games whose decisions are sampled
  int choice_points = 2;           // decisions sampled per such game
  ChoiceSettings choice;
  // Told when each tournament starts (for progress on stderr); not part of the report.
  std::function<void(std::string_view stage)> progress;
};

// How much better a player does than random at the same table.
struct SkillGap {
  std::string player;
  std::int64_t games = 0;
  Rate player_rate;  // the player's seat-games won
  Rate random_rate;  // random's seat-games won at the same tables
  double gap = 0;    // player_rate.rate - random_rate.rate
  // The player's wins over all wins at those tables: 0.5 when skill buys nothing, 1 when random
  // never wins. Comparable across games, where the rates are not: with one winner and the
  // player at half of four seats, a seat-game is won at most half the time.
  double share = 0.5;
};

// `mixed` is a tournament of `player` against random; the gap is read from its per-strategy
// win rates.
SkillGap skill_gap(const SimReport& mixed, const std::string& player);

struct ChoiceSummary {
  std::int64_t games = 0;      // all-greedy games whose decisions were looked at
  std::int64_t decisions = 0;  // decisions in those games
  std::int64_t forced = 0;     // of which offered one legal move (or none)
  std::int64_t sampled = 0;    // decisions measured
  double legal_moves = 0;      // mean legal moves at the measured decisions
  double tried = 0;            // mean candidates played out
  Rate differs;                // measured decisions whose best and worst moves differ
  double gap = 0;              // mean best - worst outcome
};

ChoiceSummary summarize_choices(const std::vector<ChoiceSample>& samples);

struct Tournament {
  std::string players;  // "random", "greedy", the search player, or "greedy vs random"
  SimReport report;
};

struct QualityReport {
  ReportConfig config;  // as run (progress dropped)
  std::string name;     // the game's name for people
  std::string variant_description;
  Json options;  // normalized
  int seats = 0;
  std::vector<Tournament> same;   // every seat one strategy: random, greedy, search
  std::vector<Tournament> mixed;  // greedy vs random, search vs random (duplicate deals)
  std::vector<SkillGap> skill;    // per mixed tournament
  ChoiceSummary choices;
};

std::optional<QualityReport> run_quality_report(const ReportConfig& config, std::string& error);

// The command that makes this report (without --out).
std::string report_command(const ReportConfig& config);
// "<kind>" or "<kind>-<variant>" ("-options" with other options): the report's file name stem.
std::string report_stem(const ReportConfig& config);
Json quality_report_json(const QualityReport& report);
std::string quality_report_markdown(const QualityReport& report);

}  // namespace parlor::sim
