// Non-interference of every game (see worlds.h): at seeded random positions of the first
// deal, worlds that differ only in what a viewer cannot see show it the same views, prompts,
// events and replay, byte for byte. PARLOR_SEED replays a run (each game's histories use
// seeds SEED, SEED+1, ...); PARLOR_SELF_PLAY_GAMES changes how many histories per game.
#include <gtest/gtest.h>

#include <iostream>

#include "games/testing/self_play.h"
#include "tests/noninterference/worlds.h"

namespace parlor::testing {
namespace {

constexpr int kWorldsPerPosition = 3;

void check_game(std::size_t which, int histories) {
  const auto rules = std::move(all_world_rules().at(which));
  const std::uint64_t seed = test_seed(20261126);
  std::cout << rules->name() << ": seed " << seed << " (PARLOR_SEED replays)" << std::endl;
  NonInterferenceStats stats;
  for (int i = 0; i < self_play_games(histories); ++i) {
    const std::string failure = check_non_interference(*rules, seed + static_cast<std::uint64_t>(i),
                                                       kWorldsPerPosition, stats, observe);
    ASSERT_EQ(failure, "");
  }
  std::cout << "  positions " << stats.positions << ", worlds compared " << stats.worlds_compared
            << " (rejected " << stats.worlds_rejected << "), hidden items moved "
            << stats.items_resampled << ", steps compared " << stats.steps_compared << std::endl;
  // Most positions must have had something hidden to move, or the check proved nothing.
  EXPECT_GE(stats.worlds_compared, stats.positions);
}

TEST(NonInterference, BigTwoFourSeats) { check_game(0, 6); }
TEST(NonInterference, BigTwoThreeSeats) { check_game(1, 6); }
TEST(NonInterference, Spades) { check_game(2, 6); }
TEST(NonInterference, SpadesBlindNil) { check_game(3, 6); }
TEST(NonInterference, BidWhistOnceAround) { check_game(4, 6); }
TEST(NonInterference, BidWhistUntilPassed) { check_game(5, 6); }
TEST(NonInterference, AgramTwoSeats) { check_game(6, 6); }
TEST(NonInterference, AgramFiveSeats) { check_game(7, 6); }
TEST(NonInterference, GemMerchantsTwoSeats) { check_game(8, 6); }
TEST(NonInterference, GemMerchantsFourSeats) { check_game(9, 6); }

// The check can fail: a view that adds how many hearts the next seat holds (a count, no
// card named) is caught.
TEST(NonInterference, ACountOfAnotherHandIsCaught) {
  const auto rules = std::move(all_world_rules().at(2));  // Spades
  const Observer leaky = [](const WorldRules& world, const Game& initial,
                            const std::vector<std::pair<Seat, Json>>& moves, Seat viewer) {
    Observation out = observe(world, initial, moves, viewer);
    const Seat next = viewer == kSpectator ? 0 : (viewer + 1) % initial.seat_count();
    const CardSet hand =
        cards_mentioned(initial.full_state()["hands"][static_cast<std::size_t>(next)]);
    out.views.front() += std::to_string(hand.of_suit(Suit::kHearts).size());
    return out;
  };
  NonInterferenceStats stats;
  const std::string failure = check_non_interference(*rules, 1, kWorldsPerPosition, stats, leaky);
  EXPECT_NE(failure.find("tells two worlds apart"), std::string::npos) << failure;
}

}  // namespace
}  // namespace parlor::testing
