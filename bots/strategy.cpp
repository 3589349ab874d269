#include "bots/strategy.h"

namespace parlor::bots {
namespace {

class RandomStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "random"; }
  Json choose(const Json&, const Json& prompt, Rng& rng) override {
    return random_move(prompt, rng);
  }
};

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

std::unique_ptr<Strategy> make_strategy(std::string_view name, std::string_view) {
  if (name == "random") return std::make_unique<RandomStrategy>();
  return nullptr;
}

std::vector<std::string> strategy_names(std::string_view) { return {"random"}; }

}  // namespace parlor::bots
