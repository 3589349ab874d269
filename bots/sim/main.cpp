// parlor-sim: in-process self-play between bot strategies (see README.md beside this file).
//
//   parlor-sim --game agram --games 100000 --bots greedy,random,random,random --seed 1
//              [--seats N] [--options JSON] [--rotate] [--duplicate] [--json] [--no-fast-path]
//   parlor-sim --report --game KIND [--variant NAME | --options JSON] [--games N]
//              [--search-games N] [--search NAME] [--choice-games N] [--seed N] [--out DIR]
//
// The report goes to stdout and depends only on the arguments; the elapsed time and games per
// minute go to stderr. --report writes DIR/<kind>[-<variant>].md and .json instead.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "bots/sim/quality_report.h"
#include "bots/sim/simulator.h"
#include "bots/strategy.h"
#include "games/registry.h"

namespace {

constexpr const char* kUsage =
    "usage: parlor-sim --game KIND [--games N] [--bots S1,S2,...] [--seed N] [--seats N]\n"
    "                  [--options JSON] [--rotate] [--duplicate] [--json]\n"
    "  --game      bigtwo, spades, bidwhist, agram, splendor\n"
    "  --games     games to play (default 1000)\n"
    "  --bots      strategy per seat, comma-separated (default random); a shorter list is\n"
    "              padded with its last entry\n"
    "  --seed      base seed (default 1); the same arguments give the same report\n"
    "  --seats     seat count (default: the number of bots listed if the game seats that\n"
    "              many, else the game's default)\n"
    "  --options   room options as a JSON object, e.g. '{\"deals\":3}'\n"
    "  --rotate    shift the bots one seat each game (each strategy plays every seat)\n"
    "  --duplicate deal each hand once per seat, the bots shifted one seat each time\n"
    "              (once per period of a list that repeats, e.g. 2 for a,b,a,b; implies\n"
    "              --rotate; --games should be a multiple of it); with two strategies\n"
    "              the report adds the paired points difference per deal\n"
    "  --json      print the report as JSON\n"
    "  --no-fast-path  send random play through views and prompts too (for comparison)\n"
    "\n"
    "       parlor-sim --report --game KIND [--variant NAME | --options JSON] [--games N]\n"
    "                  [--search-games N] [--search NAME] [--choice-games N] [--seed N]\n"
    "                  [--out DIR]\n"
    "  --report       write a game-quality report to DIR/KIND[-VARIANT].md and .json\n"
    "  --variant      a named variant (a non-default choice value, or a boolean option's name)\n"
    "  --games        games per random and greedy tournament (default 400)\n"
    "  --search-games games per tournament with the search player (default 40)\n"
    "  --search       the search player (default ismcts at its default budget)\n"
    "  --choice-games all-greedy games whose decisions are sampled (default 20)\n"
    "  --out          directory for the report (default .)\n";

int run_report(parlor::sim::ReportConfig config, const std::string& out_dir) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  config.progress = [&](std::string_view stage) {
    std::fprintf(stderr, "%7.1f s  %.*s\n", elapsed(), static_cast<int>(stage.size()),
                 stage.data());
  };
  std::string error;
  const auto report = parlor::sim::run_quality_report(config, error);
  if (!report) {
    std::cerr << "parlor-sim: " << error << "\n";
    return 1;
  }
  const std::string stem = out_dir + "/" + parlor::sim::report_stem(config);
  std::ofstream markdown(stem + ".md", std::ios::binary);
  markdown << parlor::sim::quality_report_markdown(*report);
  std::ofstream json(stem + ".json", std::ios::binary);
  json << parlor::sim::quality_report_json(*report).dump(2) << "\n";
  if (!markdown || !json) {
    std::cerr << "parlor-sim: cannot write " << stem << ".md / .json\n";
    return 1;
  }
  std::fprintf(stderr, "%7.1f s  wrote %s.md and %s.json\n", elapsed(), stem.c_str(), stem.c_str());
  return 0;
}

int fail(const std::string& message) {
  std::cerr << "parlor-sim: " << message << "\n" << kUsage;
  return 2;
}

bool parse_int(std::string_view text, long long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const std::string copy(text);
  out = std::strtoll(copy.c_str(), &end, 10);
  return end && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  parlor::sim::SimConfig config;
  parlor::sim::ReportConfig report_config;
  bool json = false;
  bool quality_report = false;
  bool games_given = false;
  std::string out_dir = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string_view(argv[++i]);
    };
    long long number = 0;
    if (arg == "--json") {
      json = true;
    } else if (arg == "--no-fast-path") {
      config.fast_random = false;
    } else if (arg == "--report") {
      quality_report = true;
    } else if (arg == "--variant" || arg == "--search" || arg == "--out") {
      const auto v = value();
      if (!v) return fail(std::string(arg) + " needs a value");
      if (arg == "--variant") report_config.variant = std::string(*v);
      if (arg == "--search") report_config.search = std::string(*v);
      if (arg == "--out") out_dir = std::string(*v);
    } else if (arg == "--search-games" || arg == "--choice-games") {
      const auto v = value();
      if (!v || !parse_int(*v, number) || number < 0) {
        return fail(std::string(arg) + " needs a non-negative integer");
      }
      if (arg == "--search-games") report_config.search_games = number;
      if (arg == "--choice-games") report_config.choice_games = number;
    } else if (arg == "--rotate") {
      config.rotate = true;
    } else if (arg == "--duplicate") {
      config.duplicate = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--game") {
      const auto v = value();
      if (!v) return fail("--game needs a value");
      config.kind = std::string(*v);
    } else if (arg == "--games" || arg == "--seed" || arg == "--seats") {
      const auto v = value();
      if (!v || !parse_int(*v, number) || number < 0) {
        return fail(std::string(arg) + " needs a non-negative integer");
      }
      if (arg == "--games") {
        config.games = number;
        games_given = true;
      }
      if (arg == "--seed") config.seed = static_cast<std::uint64_t>(number);
      if (arg == "--seats") config.seats = static_cast<int>(number);
    } else if (arg == "--bots") {
      const auto v = value();
      if (!v) return fail("--bots needs a value");
      config.bots.clear();
      std::string_view rest = *v;
      while (true) {
        const auto comma = rest.find(',');
        config.bots.emplace_back(rest.substr(0, comma));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (arg == "--options") {
      const auto v = value();
      if (!v) return fail("--options needs a JSON object");
      config.options = parlor::Json::parse(*v, nullptr, false);
      if (config.options.is_discarded()) return fail("--options is not valid JSON");
    } else {
      return fail("unknown argument \"" + std::string(arg) + "\"");
    }
  }
  if (config.kind.empty()) return fail("--game is required");
  if (quality_report) {
    if (config.seats != 0 || config.rotate || config.duplicate || json) {
      return fail(
          "--report plays the game's default seats and writes its own files; drop "
          "--seats, --rotate, --duplicate and --json");
    }
    report_config.kind = config.kind;
    report_config.options = config.options;
    report_config.seed = config.seed;
    if (games_given) report_config.games = config.games;
    return run_report(std::move(report_config), out_dir);
  }

  config.points = true;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  const auto report = parlor::sim::run_simulation(config, error);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (!report) {
    std::cerr << "parlor-sim: " << error << "\n";
    return 1;
  }
  std::cout << (json ? parlor::sim::report_to_json(*report).dump(2) + "\n"
                     : parlor::sim::report_to_text(*report));
  for (const auto& think : report->think_times) {
    if (think.decisions == 0) continue;
    std::fprintf(stderr, "%s: %lld decisions, %.3f ms mean, %.1f ms max CPU time per decision\n",
                 think.name.c_str(), static_cast<long long>(think.decisions),
                 think.total_ms / static_cast<double>(think.decisions), think.max_ms);
  }
  const double seconds = elapsed.count();
  std::fprintf(stderr, "elapsed %.2f s on one thread: %.0f games/minute\n", seconds,
               seconds > 0 ? static_cast<double>(config.games) * 60 / seconds : 0.0);
  return 0;
}
