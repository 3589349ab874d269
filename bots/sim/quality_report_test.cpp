// parlor-sim --report: the same config gives the same report; the skill gap and the
// meaningful-choice measure on cases small enough to check by hand; named variants.
#include "bots/sim/quality_report.h"

#include <gtest/gtest.h>

#include "bots/sim/variants.h"
#include "games/registry.h"

namespace parlor::sim {
namespace {

// A two-move game for the meaningful-choice measure. Seat 0 picks one of `moves`; then seat 1
// calls heads or tails (a playout's random move). "win" and "lose" settle the game whatever
// seat 1 calls; any other pick wins for seat 0 exactly when seat 1 calls heads.
class PickGame final : public Game {
 public:
  explicit PickGame(std::vector<std::string> moves) : moves_(std::move(moves)) {}
  std::string_view kind() const override { return "pick"; }
  int seat_count() const override { return 2; }
  std::vector<Seat> to_act() const override {
    if (finished()) return {};
    return {pick_.empty() ? 0 : 1};
  }
  Json legal_moves(Seat seat) const override {
    if (to_act() != std::vector<Seat>{seat}) return Json::array();
    if (seat == 0) return moves_;
    return Json::array({"heads", "tails"});
  }
  Json prompt(Seat seat) const override { return {{"legal", legal_moves(seat)}}; }
  MoveResult apply(Seat seat, const Json& move) override {
    const Json legal = legal_moves(seat);
    if (std::find(legal.begin(), legal.end(), move) == legal.end()) {
      return MoveResult::rejected("illegal", "not a legal move");
    }
    (seat == 0 ? pick_ : call_) = move.get<std::string>();
    return MoveResult::accepted();
  }
  Json view(Seat) const override { return Json::object(); }
  bool finished() const override { return !call_.empty(); }
  Json result() const override {
    if (!finished()) return nullptr;
    const bool won = pick_ == "win" || (pick_ != "lose" && call_ == "heads");
    return {{"winners", {won ? 0 : 1}}};
  }
  Json full_state() const override { return {{"pick", pick_}, {"call", call_}}; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<PickGame>(*this); }

 private:
  std::vector<std::string> moves_;
  std::string pick_;
  std::string call_;
};

bool pick_over(const Game& /*root*/, const Game& world) { return world.finished(); }
double pick_reward(const Game& /*root*/, const Game& world, Seat seat) {
  return world.result()["winners"][0] == seat ? 1.0 : 0.0;
}
const bots::IsmctsGame kPickJudge = {nullptr, pick_over, pick_reward, nullptr, 1, false};

TEST(MeaningfulChoice, WinningAndLosingMovesDiffer) {
  const PickGame game({"coin", "win", "lose"});
  const ChoiceSample s = measure_choice(game, 0, kPickJudge, nullptr, {8, 10}, 1);
  EXPECT_EQ(s.legal_moves, 3);
  EXPECT_EQ(s.tried, 3);
  EXPECT_DOUBLE_EQ(s.best, 1);   // "win" wins every playout
  EXPECT_DOUBLE_EQ(s.worst, 0);  // "lose" loses every one
  EXPECT_TRUE(s.differs);
}

TEST(MeaningfulChoice, MovesThatPlayAlikeNeverDiffer) {
  // Both moves leave the outcome to seat 1's call, and playout r makes the same call after
  // either move (common random numbers): the outcomes are identical, the gap exactly 0.
  const PickGame game({"coin", "other coin"});
  const ChoiceSample s = measure_choice(game, 0, kPickJudge, nullptr, {8, 10}, 1);
  EXPECT_EQ(s.tried, 2);
  EXPECT_DOUBLE_EQ(s.best, s.worst);
  EXPECT_GT(s.best, 0);  // some heads among ten calls
  EXPECT_LT(s.best, 1);  // and some tails
  EXPECT_FALSE(s.differs);
}

TEST(MeaningfulChoice, SamplesAtMostMaxMovesAndSkipsForcedOnes) {
  const PickGame many({"a", "b", "c", "d", "e", "win"});
  const ChoiceSample s = measure_choice(many, 0, kPickJudge, nullptr, {3, 2}, 1);
  EXPECT_EQ(s.legal_moves, 6);
  EXPECT_EQ(s.tried, 3);
  const PickGame forced({"win"});
  const ChoiceSample f = measure_choice(forced, 0, kPickJudge, nullptr, {8, 4}, 1);
  EXPECT_EQ(f.tried, 1);
  EXPECT_FALSE(f.differs);
}

TEST(MeaningfulChoice, Summary) {
  const ChoiceSummary s = summarize_choices({{4, 4, 1, 0, true}, {2, 2, 0.5, 0.5, false}});
  EXPECT_EQ(s.sampled, 2);
  EXPECT_DOUBLE_EQ(s.legal_moves, 3);
  EXPECT_DOUBLE_EQ(s.tried, 3);
  EXPECT_DOUBLE_EQ(s.gap, 0.5);
  EXPECT_EQ(s.differs.wins, 1);
  EXPECT_EQ(s.differs.trials, 2);
}

TEST(SkillGap, ReadsThePlayersRatesFromAMixedTable) {
  SimReport mixed;
  mixed.games = 40;
  mixed.strategy_rates = {{"ismcts", make_rate(30, 80)}, {"random", make_rate(10, 80)}};
  const SkillGap g = skill_gap(mixed, "ismcts");
  EXPECT_EQ(g.games, 40);
  EXPECT_EQ(g.player_rate.wins, 30);
  EXPECT_EQ(g.random_rate.wins, 10);
  EXPECT_DOUBLE_EQ(g.gap, 0.25);    // 37.5% - 12.5%
  EXPECT_DOUBLE_EQ(g.share, 0.75);  // 30 of the 40 wins
  EXPECT_NEAR(g.player_rate.low, make_rate(30, 80).low, 1e-15);
}

TEST(Variants, NamedFromTheOptionSchema) {
  auto names = [](const char* kind) {
    std::vector<std::string> out;
    for (const NamedVariant& v : named_variants(*find_game(kind))) out.push_back(v.name);
    return out;
  };
  EXPECT_EQ(names("bigtwo"), (std::vector<std::string>{"spades_hearts_diamonds_clubs", "no_twos"}));
  EXPECT_EQ(names("spades"), (std::vector<std::string>{"count_for_partner", "blind_nil"}));
  EXPECT_EQ(names("bidwhist"), (std::vector<std::string>{"until_passed"}));
  EXPECT_TRUE(names("agram").empty());
  const auto spades = named_variants(*find_game("spades"));
  EXPECT_EQ(find_variant(spades, "blind_nil")->options, (Json{{"blind_nil", true}}));
}

ReportConfig small_config(const char* kind) {
  ReportConfig config;
  config.kind = kind;
  config.games = 8;
  config.search_games = 4;
  config.search = "ismcts:10";
  config.choice_games = 2;
  config.choice_points = 1;
  config.choice = {3, 2};
  config.seed = 5;
  return config;
}

TEST(QualityReport, SameConfigSameBytes) {
  ReportConfig config = small_config("agram");
  std::string error;
  const auto a = run_quality_report(config, error);
  ASSERT_TRUE(a) << error;
  const auto b = run_quality_report(config, error);
  ASSERT_TRUE(b) << error;
  EXPECT_EQ(quality_report_json(*a).dump(), quality_report_json(*b).dump());
  EXPECT_EQ(quality_report_markdown(*a), quality_report_markdown(*b));

  EXPECT_EQ(a->seats, 4);
  ASSERT_EQ(a->same.size(), 3U);
  EXPECT_EQ(a->same[2].report.games, 4);
  ASSERT_EQ(a->skill.size(), 2U);
  EXPECT_EQ(a->skill[0].games, 8);  // whole deals: a multiple of the seats
  EXPECT_EQ(a->skill[0].player_rate.trials, 16);
  EXPECT_EQ(a->choices.games, 2);
  EXPECT_EQ(a->choices.sampled, 2);
  EXPECT_EQ(a->choices.decisions, 2 * 24);  // every seat plays six cards
  EXPECT_NE(quality_report_markdown(*a).find(report_command(config)), std::string::npos);
}

TEST(QualityReport, VariantsAndErrors) {
  ReportConfig config = small_config("bidwhist");
  config.variant = "until_passed";
  config.games = 1;
  config.search_games = 1;
  config.choice_games = 0;
  std::string error;
  const auto report = run_quality_report(config, error);
  ASSERT_TRUE(report) << error;
  EXPECT_EQ(report->options["auction"], "until_passed");
  EXPECT_EQ(report_stem(config), "bidwhist-until_passed");

  config.variant = "no_such_rule";
  EXPECT_FALSE(run_quality_report(config, error));
  EXPECT_NE(error.find("until_passed"), std::string::npos);  // lists the named variants
  config = small_config("chess");
  EXPECT_FALSE(run_quality_report(config, error));
}

}  // namespace
}  // namespace parlor::sim
