// The quality report as JSON (for scripts) and Markdown (for docs/quality/).
#include <cstdio>
#include <string>

#include "bots/sim/quality_report.h"

namespace parlor::sim {
namespace {

std::string fixed(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string percent(double share) { return fixed("%.1f%%", 100 * share); }

// "45.0% [40.2%, 49.9%] (180/400)"
std::string rate_cell(const Rate& r) {
  return percent(r.rate) + " [" + percent(r.low) + ", " + percent(r.high) + "] (" +
         std::to_string(r.wins) + "/" + std::to_string(r.trials) + ")";
}

std::string rules_line(const QualityReport& report) {
  if (!report.config.variant.empty()) {
    return "variant `" + report.config.variant + "` (" + report.variant_description + ")";
  }
  if (!report.config.options.is_null() && !report.config.options.empty()) return "custom options";
  return "default rules";
}

Json tournament_json(const Tournament& t) {
  Json out = report_to_json(t.report);
  out["players"] = t.players;
  return out;
}

}  // namespace

Json quality_report_json(const QualityReport& report) {
  const ReportConfig& c = report.config;
  Json skill = Json::array();
  for (const SkillGap& g : report.skill) {
    skill.push_back({{"player", g.player},
                     {"opponent", "random"},
                     {"games", g.games},
                     {"player_win_rate", rate_to_json(g.player_rate)},
                     {"random_win_rate", rate_to_json(g.random_rate)},
                     {"gap", g.gap},
                     {"share_of_wins", g.share}});
  }
  const ChoiceSummary& ch = report.choices;
  Json same = Json::array();
  for (const Tournament& t : report.same) same.push_back(tournament_json(t));
  Json mixed = Json::array();
  for (const Tournament& t : report.mixed) mixed.push_back(tournament_json(t));
  return {{"game", c.kind},
          {"name", report.name},
          {"variant", c.variant.empty() ? Json(nullptr) : Json(c.variant)},
          {"options", report.options},
          {"seats", report.seats},
          {"seed", c.seed},
          {"command", report_command(c)},
          {"settings",
           {{"games", c.games},
            {"search_games", c.search_games},
            {"search", c.search},
            {"choice_games", c.choice_games},
            {"choice_points_per_game", c.choice_points},
            {"choice_max_moves", c.choice.max_moves},
            {"choice_rollouts_per_half", c.choice.rollouts}}},
          {"skill", std::move(skill)},
          {"meaningful_choices",
           {{"games", ch.games},
            {"decisions", ch.decisions},
            {"forced", ch.forced},
            {"sampled", ch.sampled},
            {"legal_moves", ch.legal_moves},
            {"tried", ch.tried},
            {"differ", rate_to_json(ch.differs)},
            {"mean_gap", ch.gap}}},
          {"same_strategy", std::move(same)},
          {"against_random", std::move(mixed)}};
}

std::string quality_report_markdown(const QualityReport& report) {
  const ReportConfig& c = report.config;
  std::string out = "# " + report.name + " (`" + c.kind + "`): " + rules_line(report) + "\n\n";
  out += "Options " + report.options.dump() + ", " + std::to_string(report.seats) +
         " seats, seed " + std::to_string(c.seed) + ". Made by\n\n```sh\n" + report_command(c) +
         "\n```\n\n";
  out += "Games: " + std::to_string(c.games) + " per tournament of random and greedy players, " +
         std::to_string(c.search_games) + " per tournament with `" + c.search +
         "`; meaningful choices from " + std::to_string(c.choice_points) +
         " decisions in each of the first " + std::to_string(c.choice_games) +
         " all-greedy games. Measures: `bots/sim/README.md`, \"Quality report\".\n\n";

  out += "## How much skill matters\n\n";
  out +=
      "Each player against random at alternate seats, on duplicate deals (every deal played "
      "from every seat). Win rates per seat-game with Wilson 95% intervals; the share of the "
      "wins is the player's wins over all wins at those tables (50%: skill buys nothing, 100%: "
      "random never wins).\n\n";
  out += "| player | games | player wins | random wins | gap | player's share of the wins |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const SkillGap& g : report.skill) {
    out += "| " + g.player + " | " + std::to_string(g.games) + " | " + rate_cell(g.player_rate) +
           " | " + rate_cell(g.random_rate) + " | " + fixed("%+.1f", 100 * g.gap) + " points | " +
           percent(g.share) + " |\n";
  }

  const ChoiceSummary& ch = report.choices;
  out += "\n## Meaningful choices\n\n";
  out += "| measure | value |\n|---|---|\n";
  out += "| decisions in the sampled games | " + std::to_string(ch.decisions) + " in " +
         std::to_string(ch.games) + " games |\n";
  out +=
      "| forced (one legal move) | " +
      percent(ch.decisions > 0 ? static_cast<double>(ch.forced) / static_cast<double>(ch.decisions)
                               : 0) +
      " |\n";
  out += "| decisions measured | " + std::to_string(ch.sampled) + " |\n";
  out += "| legal moves there (mean) | " + fixed("%.2f", ch.legal_moves) + " |\n";
  out += "| moves played out (mean) | " + fixed("%.2f", ch.tried) + " |\n";
  out += "| best and worst move differ | " + rate_cell(ch.differs) + " |\n";
  out += "| best minus worst outcome (mean) | " + fixed("%.3f", ch.gap) + " |\n";

  out += "\n## Shape of the games (every seat the same player)\n\n| measure |";
  std::string rule = "|---|";
  for (const Tournament& t : report.same) {
    out += " " + t.players + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  auto row = [&](const std::string& label, auto&& cell) {
    out += "| " + label + " |";
    for (const Tournament& t : report.same) out += " " + cell(t.report) + " |";
    out += "\n";
  };
  row("games", [](const SimReport& r) { return std::to_string(r.games); });
  row("moves per game", [](const SimReport& r) { return fixed("%.1f", r.moves_per_game); });
  row("decisions per game", [](const SimReport& r) {
    return fixed("%.1f", static_cast<double>(r.decisions) / static_cast<double>(r.games));
  });
  row("branching factor", [](const SimReport& r) { return fixed("%.2f", r.branching); });
  row("lead changes", [](const SimReport& r) { return fixed("%.2f", r.quality.lead_changes); });
  row("drama", [](const SimReport& r) { return fixed("%.3f", r.quality.drama); });
  row("security", [](const SimReport& r) { return fixed("%.3f", r.quality.security); });
  row("order", [](const SimReport& r) { return fixed("%.3f", r.quality.order); });
  row("spread", [](const SimReport& r) { return fixed("%.3f", r.quality.spread); });
  row("convergence", [](const SimReport& r) { return fixed("%.3f", r.quality.convergence); });
  row("fairness", [](const SimReport& r) { return fixed("%.3f", r.fairness); });

  out += "\n## Seat advantage (every seat the same player)\n\n";
  out +=
      "Share of games each seat won, Wilson 95% interval (who acts first: docs/RULES.md).\n\n| "
      "seat |";
  for (const Tournament& t : report.same) out += " " + t.players + " |";
  out += "\n" + rule + "\n";
  for (int s = 0; s < report.seats; ++s) {
    out += "| " + std::to_string(s) + " |";
    for (const Tournament& t : report.same) {
      out += " " + rate_cell(t.report.seat_rates[static_cast<std::size_t>(s)]) + " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace parlor::sim
