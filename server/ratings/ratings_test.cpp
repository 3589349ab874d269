#include "server/ratings/ratings.h"

#include <gtest/gtest.h>

#include <numeric>

namespace parlor::ratings {
namespace {

// Glickman, "Example of the Glicko-2 system" (2012): a 1500/200/0.06 player beats 1400/30 and
// loses to 1550/100 and 1700/300 with tau 0.5.
TEST(RatingGlicko2, MatchesThePublishedExample) {
  const Rating player{1500, 200, 0.06};
  const std::vector<Glicko2Game> games = {
      {{1400, 30, 0.06}, 1}, {{1550, 100, 0.06}, 0}, {{1700, 300, 0.06}, 0}};
  const Rating after = glicko2_update(player, games);
  EXPECT_NEAR(after.rating, 1464.06, 0.01);
  EXPECT_NEAR(after.deviation, 151.52, 0.01);
  EXPECT_NEAR(after.volatility, 0.05999, 0.00001);
}

TEST(RatingGlicko2, AnIdlePeriodOnlyWidensTheDeviation) {
  const Rating player{1600, 100, 0.06};
  const Rating after = glicko2_update(player, {});
  EXPECT_DOUBLE_EQ(after.rating, 1600);
  EXPECT_GT(after.deviation, 100);
  EXPECT_DOUBLE_EQ(after.volatility, 0.06);
}

TEST(RatingGlicko2, ADrawBetweenEqualsMovesNoRating) {
  const Rating player{1500, 350, 0.06};
  const Glicko2Game draw{player, 0.5};
  const Rating after = glicko2_update(player, std::span(&draw, 1));
  EXPECT_NEAR(after.rating, 1500, 1e-9);
  EXPECT_LT(after.deviation, 350);
}

TEST(RatingWengLin, WinnerGainsLoserLosesAndBothGrowSurer) {
  const std::vector<std::vector<Rating>> sides = {{Rating{}}, {Rating{}}, {Rating{}}};
  const auto after = weng_lin_update(sides, {0, 1, 2});
  EXPECT_GT(after[0][0].rating, 1500);
  EXPECT_NEAR(after[1][0].rating, 1500, 1e-9);  // the middle of three equals stays
  EXPECT_LT(after[2][0].rating, 1500);
  for (const auto& side : after) EXPECT_LT(side[0].deviation, 350);
  // Equal players, equal uncertainty: what the winner gains the loser loses.
  EXPECT_NEAR(after[0][0].rating - 1500, 1500 - after[2][0].rating, 1e-9);
}

TEST(RatingWengLin, ChangesFollowThePlacesAndSumToZeroBetweenEquals) {
  const std::vector<std::vector<Rating>> sides = {{Rating{}}, {Rating{}}, {Rating{}}, {Rating{}}};
  const auto after = weng_lin_update(sides, {2, 0, 3, 1});
  EXPECT_GT(after[1][0].rating, after[3][0].rating);
  EXPECT_GT(after[3][0].rating, after[0][0].rating);
  EXPECT_GT(after[0][0].rating, after[2][0].rating);
  double sum = 0;
  for (const auto& side : after) sum += side[0].rating - 1500;
  EXPECT_NEAR(sum, 0, 1e-9);
}

TEST(RatingWengLin, TiedPlacesBetweenEqualsMoveNoRating) {
  const std::vector<std::vector<Rating>> sides = {{Rating{}}, {Rating{}}, {Rating{}}};
  const auto after = weng_lin_update(sides, {0, 0, 0});
  for (const auto& side : after) EXPECT_NEAR(side[0].rating, 1500, 1e-9);
}

TEST(RatingWengLin, AnUpsetMovesMoreThanAnExpectedWin) {
  const Rating strong{1800, 100, 0.06};
  const Rating weak{1200, 100, 0.06};
  const Rating third{1500, 100, 0.06};
  const auto expected = weng_lin_update({{strong}, {weak}, {third}}, {0, 2, 1});
  const auto upset = weng_lin_update({{strong}, {weak}, {third}}, {2, 0, 1});
  EXPECT_GT(upset[1][0].rating - weak.rating, expected[0][0].rating - strong.rating);
}

TEST(RatingWengLin, PartnersShareByTheirUncertainty) {
  const Rating sure{1500, 50, 0.06};
  const Rating unsure{1500, 300, 0.06};
  const auto after =
      weng_lin_update({{sure, unsure}, {Rating{}, Rating{}}, {Rating{}, Rating{}}}, {0, 1, 2});
  EXPECT_GT(after[0][0].rating, 1500);
  EXPECT_GT(after[0][1].rating - 1500, after[0][0].rating - 1500);
  EXPECT_LT(after[2][0].rating, 1500);
  EXPECT_LT(after[2][1].rating, 1500);
}

TEST(RatingWengLin, RefusesFewerThanTwoSidesOrMismatchedRanks) {
  EXPECT_THROW(weng_lin_update({{Rating{}}}, {0}), std::invalid_argument);
  EXPECT_THROW(weng_lin_update({{Rating{}}, {Rating{}}}, {0}), std::invalid_argument);
  EXPECT_THROW(weng_lin_update({{Rating{}}, {}}, {0, 1}), std::invalid_argument);
}

TEST(RatingSides, OneSidePerSeatRankedByWinnersThenScore) {
  const nlohmann::json result = {{"scores", {3, 9, 5, 5}}, {"winners", {1}}};
  const auto sides = sides_from_result(result, 4, {});
  ASSERT_TRUE(sides);
  ASSERT_EQ(sides->size(), 4U);
  EXPECT_EQ((*sides)[1].rank, 0);
  EXPECT_EQ((*sides)[2].rank, 1);
  EXPECT_EQ((*sides)[3].rank, 1);  // equal scores tie
  EXPECT_EQ((*sides)[0].rank, 3);
}

TEST(RatingSides, TeamScoresMakePartnerships) {
  const nlohmann::json result = {
      {"scores", {250, 510, 250, 510}}, {"winners", {1, 3}}, {"team_scores", {250, 510}}};
  const auto sides = sides_from_result(result, 4, {});
  ASSERT_TRUE(sides);
  ASSERT_EQ(sides->size(), 2U);
  EXPECT_EQ((*sides)[0].seats, (std::vector<int>{0, 2}));
  EXPECT_EQ((*sides)[1].seats, (std::vector<int>{1, 3}));
  EXPECT_EQ((*sides)[1].rank, 0);
  EXPECT_EQ((*sides)[0].rank, 1);
}

TEST(RatingSides, AnAbandonerRanksLastEvenWhenItsBotWon) {
  const nlohmann::json result = {{"scores", {7, 2, 1}}, {"winners", {0}}};
  const auto sides = sides_from_result(result, 3, {true, false, false});
  ASSERT_TRUE(sides);
  EXPECT_EQ((*sides)[0].rank, 2);
  EXPECT_EQ((*sides)[1].rank, 0);
  EXPECT_EQ((*sides)[2].rank, 1);
}

TEST(RatingSides, AResultWithoutWinnersOrFittingScoresIsNotRated) {
  EXPECT_FALSE(sides_from_result(nlohmann::json{{"scores", {1, 2}}}, 2, {}));
  EXPECT_FALSE(sides_from_result(nlohmann::json{{"scores", {1}}, {"winners", {0}}}, 2, {}));
  EXPECT_FALSE(sides_from_result(nlohmann::json{{"scores", {1, 2}}, {"winners", {5}}}, 2, {}));
  EXPECT_FALSE(sides_from_result(nullptr, 2, {}));
}

TEST(RatingGame, TwoSidesUseGlicko2AndPartnersMoveTogether) {
  const std::vector<Side> sides = {{{0, 2}, 1}, {{1, 3}, 0}};
  const std::vector<Rating> before(4);
  const GameRatings rated = rate_game(sides, before);
  EXPECT_EQ(rated.system, System::kGlicko2);
  EXPECT_LT(rated.after[0].rating, 1500);
  EXPECT_DOUBLE_EQ(rated.after[0].rating, rated.after[2].rating);
  EXPECT_GT(rated.after[1].rating, 1500);
  EXPECT_NEAR(rated.after[1].rating - 1500, 1500 - rated.after[0].rating, 1e-6);
  // One game between newcomers, by Glicko-2 itself.
  const Glicko2Game win{Rating{}, 1};
  EXPECT_DOUBLE_EQ(rated.after[1].rating, glicko2_update(Rating{}, std::span(&win, 1)).rating);
}

TEST(RatingGame, ThreeSidesUseWengLin) {
  const std::vector<Side> sides = {{{0}, 0}, {{1}, 1}, {{2}, 2}};
  const GameRatings rated = rate_game(sides, std::vector<Rating>(3));
  EXPECT_EQ(rated.system, System::kWengLin);
  EXPECT_GT(rated.after[0].rating, rated.after[1].rating);
  EXPECT_GT(rated.after[1].rating, rated.after[2].rating);
  EXPECT_EQ(system_name(rated.system), "weng-lin");
  EXPECT_THROW(rate_game({{{0}, 0}}, std::vector<Rating>(1)), std::invalid_argument);
  EXPECT_THROW(rate_game({{{0}, 0}, {{4}, 1}}, std::vector<Rating>(2)), std::invalid_argument);
}

TEST(RatingGame, ConservativeRatingIsTwoDeviationsBelow) {
  EXPECT_DOUBLE_EQ(conservative(Rating{1600, 80, 0.06}), 1440);
}

}  // namespace
}  // namespace parlor::ratings
