#include "bots/strategy.h"

#include <array>
#include <charconv>

#include "bots/greedy.h"
#include "bots/ismcts.h"

namespace parlor::bots {
namespace {

class RandomStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "random"; }
  Json choose(const Json&, const Json& prompt, Rng& rng) override {
    return random_move(prompt, rng);
  }
  bool reads_view() const override { return false; }
};

// The per-game heuristics: one line per game.
struct GreedyEntry {
  std::string_view kind;
  std::unique_ptr<Strategy> (*make)();
};
constexpr std::array<GreedyEntry, 5> kGreedy = {{
    {"bigtwo", make_greedy_bigtwo},
    {"spades", make_greedy_spades},
    {"bidwhist", make_greedy_bidwhist},
    {"agram", make_greedy_agram},
    {"splendor", make_greedy_splendor},
}};

const GreedyEntry* find_greedy(std::string_view kind) {
  for (const GreedyEntry& entry : kGreedy) {
    if (entry.kind == kind) return &entry;
  }
  return nullptr;
}

// The N of "ismcts:N": 1 to 100000 iterations.
bool parse_iterations(std::string_view text, int& iterations) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1 || value > 100000) {
    return false;
  }
  iterations = value;
  return true;
}

}  // namespace

Json random_move(const Json& prompt, Rng& rng) {
  if (!prompt.is_object()) return nullptr;
  if (auto legal = prompt.find("legal"); legal != prompt.end() && !legal->empty()) {
    return (*legal)[rng.uniform(legal->size())];
  }
  if (auto choose = prompt.find("choose"); choose != prompt.end()) {
    const Json& from = (*choose)["from"];
    const auto count = (*choose)["count"].get<std::size_t>();
    if (count > from.size()) return nullptr;
    std::vector<std::size_t> order(from.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    Json picked = Json::array();
    for (std::size_t i = 0; i < count; ++i) {
      std::swap(order[i], order[i + rng.uniform(order.size() - i)]);
      picked.push_back(from[order[i]]);
    }
    return {{"action", (*choose)["action"]}, {(*choose)["field"].get<std::string>(), picked}};
  }
  return nullptr;
}

Json pass_or_first_legal(const Json& prompt) {
  if (!prompt.is_object()) return nullptr;
  if (auto legal = prompt.find("legal"); legal != prompt.end() && !legal->empty()) {
    for (const Json& move : *legal) {
      if (move.is_object() && move.value("action", "") == "pass") return move;
    }
    return legal->front();
  }
  if (auto choose = prompt.find("choose"); choose != prompt.end()) {
    const Json& from = (*choose)["from"];
    const auto count = (*choose)["count"].get<std::size_t>();
    if (count > from.size()) return nullptr;
    Json picked = Json::array();
    for (std::size_t i = 0; i < count; ++i) picked.push_back(from[i]);
    return {{"action", (*choose)["action"]}, {(*choose)["field"].get<std::string>(), picked}};
  }
  return nullptr;
}

std::unique_ptr<Strategy> make_best_strategy(std::string_view kind) {
  if (auto greedy = make_strategy("greedy", kind)) return greedy;
  return make_strategy("random", kind);
}

std::string_view difficulty_strategy(std::string_view name) {
  if (name == "easy") return "random";
  if (name == "medium") return "greedy";
  if (name == "hard") return "ismcts";
  return name;
}

bool strategy_searches(std::string_view name) {
  return difficulty_strategy(name).starts_with("ismcts");
}

std::unique_ptr<Strategy> make_strategy(std::string_view requested, std::string_view kind) {
  const std::string_view name = difficulty_strategy(requested);
  if (name == "ismcts" || name.starts_with("ismcts:")) {
    const IsmctsGame* game = find_ismcts_game(kind);
    auto fallback = make_strategy("greedy", kind);
    if (!game || !fallback) return nullptr;
    SearchBudget budget;
    budget.iterations = game->iterations;
    if (name != "ismcts" && !parse_iterations(name.substr(7), budget.iterations)) return nullptr;
    return make_ismcts(*game, std::move(fallback), budget);
  }
  if (name == "random") return std::make_unique<RandomStrategy>();
  if (name == "greedy") {
    if (const GreedyEntry* entry = find_greedy(kind)) return entry->make();
  }
  return nullptr;
}

std::vector<std::string> strategy_names(std::string_view kind) {
  std::vector<std::string> names = {"random"};
  if (find_greedy(kind)) names.emplace_back("greedy");
  if (find_greedy(kind) && find_ismcts_game(kind)) names.emplace_back("ismcts");
  return names;
}

}  // namespace parlor::bots
