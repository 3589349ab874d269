// Strategies only ever answer with legal moves: for every game and every strategy, thousands of
// states reached by seeded play (half the moves random, half the strategy's own, so the states
// a strategy steers into are covered too) are put to the strategy, and its answer must be in
// the prompt's `legal` list (or, for a `choose` prompt, be accepted by the engine) and be
// accepted on a clone of the game.
#include "bots/strategy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "games/registry.h"

namespace parlor::bots {
namespace {

constexpr std::uint64_t kSeed = 20240611;

struct Coverage {
  int states = 0;
  int games = 0;
};

// Plays seeded games of `kind` until `min_states` decisions have been checked.
Coverage check_strategy(std::string_view kind, std::string_view name, int min_states,
                        const Json& options = nullptr, int seats = 0) {
  const GameInfo* info = find_game(kind);
  EXPECT_NE(info, nullptr);
  if (!info) return {};
  auto strategy = make_strategy(name, kind);
  auto random = make_strategy("random", kind);
  EXPECT_NE(strategy, nullptr) << name;
  if (!strategy) return {};
  Coverage coverage;
  Rng rng(kSeed);
  Rng chooser(kSeed + 1);
  for (std::uint64_t game_seed = kSeed; coverage.states < min_states; ++game_seed) {
    std::string error;
    auto game = create_game(*info, options, seats > 0 ? seats : info->default_seats, game_seed,
                            nullptr, error);
    EXPECT_NE(game, nullptr) << error;
    if (!game) return coverage;
    ++coverage.games;
    for (int moves = 0; !game->finished() && moves < 20000; ++moves) {
      const Seat seat = game->to_act().front();
      const Json prompt = game->prompt(seat);
      const Json view = game->view(seat);
      const Json move = strategy->choose(view, prompt, rng);
      ++coverage.states;
      if (prompt.contains("legal")) {
        const auto& legal = prompt["legal"];
        EXPECT_NE(std::find(legal.begin(), legal.end(), move), legal.end())
            << kind << " " << name << " seed " << game_seed << ": " << move.dump()
            << " is not in the legal list\nview: " << view.dump();
      }
      auto probe = game->clone();
      const MoveResult checked = probe->apply(seat, move);
      EXPECT_TRUE(checked.ok()) << kind << " " << name << " seed " << game_seed << ": "
                                << move.dump() << " rejected: " << checked.code() << " "
                                << checked.message() << "\nview: " << view.dump();
      if (!checked.ok()) return coverage;
      const Json next = chooser.uniform(2) == 0 ? move : random->choose(view, prompt, rng);
      const MoveResult applied = game->apply(seat, next);
      EXPECT_TRUE(applied.ok()) << applied.message();
      if (!applied.ok()) return coverage;
    }
  }
  return coverage;
}

class StrategyLegality : public ::testing::TestWithParam<std::string> {};

TEST_P(StrategyLegality, EveryStrategyAnswersWithLegalMoves) {
  const std::string kind = GetParam();
  // Splendor games are long and each of its states is dearer to check: fewer, still thousands.
  const int min_states = kind == "splendor" ? 2000 : 3000;
  for (const std::string& name : strategy_names(kind)) {
    if (strategy_searches(name)) continue;  // too dear here: ismcts_test.cpp checks it
    const Coverage coverage = check_strategy(kind, name, min_states);
    EXPECT_GE(coverage.states, min_states) << kind << " " << name;
    std::printf("%s/%s: %d states in %d games\n", kind.c_str(), name.c_str(), coverage.states,
                coverage.games);
  }
}

INSTANTIATE_TEST_SUITE_P(AllGames, StrategyLegality,
                         ::testing::Values("bigtwo", "spades", "bidwhist", "agram", "splendor"));

// The named variants and other seat counts, with fewer states each.
struct Variant {
  const char* kind;
  int seats;
  const char* options;
};

TEST(StrategyLegality, VariantsAndSeatCounts) {
  const Variant variants[] = {
      {"bigtwo", 2, R"({})"},
      {"bigtwo", 3, R"({"suit_order":"spades_hearts_diamonds_clubs","straights":"no_twos"})"},
      {"bigtwo", 4, R"({"deals":2})"},
      {"spades", 4, R"({"blind_nil":true,"failed_nil":"count_for_partner","target":200})"},
      {"bidwhist", 4, R"({"auction":"until_passed","target":3})"},
      {"agram", 2, R"({"target":2})"},
      {"agram", 5, R"({})"},
      {"splendor", 2, R"({})"},
      {"splendor", 3, R"({})"},
  };
  for (const Variant& v : variants) {
    for (const std::string& name : strategy_names(v.kind)) {
      if (strategy_searches(name)) continue;
      const Coverage coverage = check_strategy(v.kind, name, 1000, Json::parse(v.options), v.seats);
      EXPECT_GE(coverage.states, 1000) << v.kind << " " << v.options << " " << name;
    }
  }
}

TEST(StrategyRegistry, RandomEverywhereAndGreedyForEachGame) {
  for (const GameInfo& info : game_registry()) {
    const auto names = strategy_names(info.kind);
    EXPECT_NE(std::find(names.begin(), names.end(), "random"), names.end()) << info.kind;
    for (std::string_view kind : {"bigtwo", "spades", "bidwhist", "agram", "splendor"}) {
      if (info.kind == kind) {
        EXPECT_NE(std::find(names.begin(), names.end(), "greedy"), names.end()) << info.kind;
      }
    }
    for (const std::string& name : names) {
      const auto strategy = make_strategy(name, info.kind);
      ASSERT_NE(strategy, nullptr) << info.kind << " " << name;
      EXPECT_EQ(strategy->name(), name);
    }
  }
}

TEST(StrategyRegistry, UnknownNamesAndKinds) {
  EXPECT_EQ(make_strategy("minimax", "bigtwo"), nullptr);
  EXPECT_EQ(make_strategy("greedy", "no_such_game"), nullptr);
  EXPECT_NE(make_strategy("random", "no_such_game"), nullptr);
  EXPECT_EQ(strategy_names("no_such_game"), std::vector<std::string>{"random"});
}

TEST(RandomMove, ChoosePromptGivesADistinctSubsetOfTheRightSize) {
  const Json prompt = {{"actions", {"discard"}},
                       {"choose",
                        {{"action", "discard"},
                         {"field", "cards"},
                         {"count", 3},
                         {"from", {"2C", "3C", "4C", "5C", "6C"}}}}};
  Rng rng(7);
  for (int i = 0; i < 100; ++i) {
    const Json move = random_move(prompt, rng);
    ASSERT_EQ(move["action"], "discard");
    ASSERT_EQ(move["cards"].size(), 3U);
    std::vector<std::string> cards = move["cards"].get<std::vector<std::string>>();
    std::sort(cards.begin(), cards.end());
    EXPECT_EQ(std::unique(cards.begin(), cards.end()), cards.end());
  }
  EXPECT_TRUE(random_move(Json(nullptr), rng).is_null());
  EXPECT_TRUE(random_move(Json{{"legal", Json::array()}}, rng).is_null());
}

TEST(Greedy, IsDeterministicWhateverTheRandomSource) {
  // Same view and prompt, different random sources: the same answer.
  for (const GameInfo& info : game_registry()) {
    std::string error;
    auto game = create_game(info, nullptr, info.default_seats, 99, nullptr, error);
    ASSERT_NE(game, nullptr) << error;
    auto greedy = make_strategy("greedy", info.kind);
    const Seat seat = game->to_act().front();
    Rng a(1);
    Rng b(2);
    EXPECT_EQ(greedy->choose(game->view(seat), game->prompt(seat), a),
              greedy->choose(game->view(seat), game->prompt(seat), b))
        << info.kind;
  }
}

}  // namespace
}  // namespace parlor::bots
