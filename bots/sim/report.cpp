// The simulator report as JSON (for scripts) and as text (for people).
#include <cstdio>
#include <string>

#include "bots/sim/simulator.h"

namespace parlor::sim {
namespace {

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string rate_text(const Rate& r) {
  return std::to_string(r.wins) + "/" + std::to_string(r.trials) + "  " +
         format("%6.2f%%", 100 * r.rate) + "  [" + format("%.2f%%", 100 * r.low) + ", " +
         format("%.2f%%", 100 * r.high) + "]";
}

std::string mean_text(const MeanInterval& m) {
  return format("%+.3f", m.mean) + "  [" + format("%+.3f", m.low) + ", " + format("%+.3f", m.high) +
         "]  (" + std::to_string(m.samples) + ")";
}

Json mean_to_json(const MeanInterval& m) {
  return {{"samples", m.samples}, {"mean", m.mean}, {"ci95", {m.low, m.high}}};
}

}  // namespace

Json rate_to_json(const Rate& r) {
  return {{"wins", r.wins}, {"trials", r.trials}, {"rate", r.rate}, {"ci95", {r.low, r.high}}};
}

Json report_to_json(const SimReport& report) {
  Json seats = Json::array();
  for (std::size_t s = 0; s < report.seat_rates.size(); ++s) {
    Json entry = rate_to_json(report.seat_rates[s]);
    entry["seat"] = s;
    entry["strategy"] = report.rotate ? Json(nullptr) : Json(report.bots[s]);
    seats.push_back(std::move(entry));
  }
  Json strategies = Json::array();
  for (const StrategyRate& sr : report.strategy_rates) {
    Json entry = rate_to_json(sr.rate);
    entry["strategy"] = sr.name;
    strategies.push_back(std::move(entry));
  }
  const GameQuality& q = report.quality;
  Json out = {{"game", report.kind},
              {"seats", report.seats},
              {"options", report.options},
              {"seed", report.seed},
              {"games", report.games},
              {"bots", report.bots},
              {"rotate", report.rotate},
              {"duplicate", report.duplicate},
              {"games_per_deal", report.games_per_deal},
              {"win_rate_per_seat", std::move(seats)},
              {"win_rate_per_strategy", std::move(strategies)},
              {"decisions", report.decisions},
              {"moves_per_game", report.moves_per_game},
              {"branching_factor", report.branching},
              {"lead_changes_per_game", q.lead_changes},
              {"quality",
               {{"fairness", report.fairness},
                {"drama", q.drama},
                {"convergence", q.convergence},
                {"spread", q.spread},
                {"security", q.security},
                {"order", q.order}}}};
  if (report.points) {
    Json points = Json::array();
    for (std::size_t i = 0; i < report.strategy_points.size(); ++i) {
      Json entry = mean_to_json(report.strategy_points[i]);
      entry["strategy"] = report.strategy_rates[i].name;
      points.push_back(std::move(entry));
    }
    out["points_per_strategy"] = std::move(points);
    if (report.paired) {
      Json paired = mean_to_json(report.paired->difference);
      paired["first"] = report.paired->first;
      paired["second"] = report.paired->second;
      out["paired_points_per_deal"] = std::move(paired);
    }
  }
  return out;
}

std::string report_to_text(const SimReport& report) {
  std::string out =
      "parlor-sim: " + report.kind + ", " + std::to_string(report.seats) + " seats, " +
      std::to_string(report.games) + " games, seed " + std::to_string(report.seed) + ", options " +
      report.options.dump() + (report.rotate ? ", seats rotated each game" : "") +
      (report.duplicate
           ? ", each deal played at " + std::to_string(report.games_per_deal) + " distinct seatings"
           : "") +
      "\n";
  out += "win rate per seat (95% CI):\n";
  for (std::size_t s = 0; s < report.seat_rates.size(); ++s) {
    std::string label = "  seat " + std::to_string(s) + "  " + report.bots[s];
    if (report.rotate) label = "  seat " + std::to_string(s);
    label.resize(std::max<std::size_t>(label.size(), 20), ' ');
    out += label + rate_text(report.seat_rates[s]) + "\n";
  }
  out += "win rate per strategy (95% CI, per seat-game):\n";
  for (const StrategyRate& sr : report.strategy_rates) {
    std::string label = "  " + sr.name;
    label.resize(std::max<std::size_t>(label.size(), 20), ' ');
    out += label + rate_text(sr.rate) + "\n";
  }
  if (report.points) {
    out += "points per game per strategy (mean final standing of its sides, 95% t CI, games):\n";
    for (std::size_t i = 0; i < report.strategy_points.size(); ++i) {
      std::string label = "  " + report.strategy_rates[i].name;
      label.resize(std::max<std::size_t>(label.size(), 20), ' ');
      out += label + mean_text(report.strategy_points[i]) + "\n";
    }
  }
  if (report.paired) {
    std::string label = "  " + report.paired->first + " - " + report.paired->second + "  ";
    label.resize(std::max<std::size_t>(label.size(), 20), ' ');
    out += "paired points per deal (95% t CI over deals, deals):\n" + label +
           mean_text(report.paired->difference) + "\n";
  }
  const GameQuality& q = report.quality;
  out += "game length:      " + format("%.2f", report.moves_per_game) + " moves\n";
  out += "branching factor: " + format("%.2f", report.branching) + " legal moves per decision\n";
  out += "lead changes:     " + format("%.3f", q.lead_changes) + " per game\n";
  out += "quality:          fairness " + format("%.3f", report.fairness) + "  drama " +
         format("%.3f", q.drama) + "  convergence " + format("%.3f", q.convergence) + "  spread " +
         format("%.3f", q.spread) + "  security " + format("%.3f", q.security) + "  order " +
         format("%.3f", q.order) + "\n";
  return out;
}

}  // namespace parlor::sim
