// Self-play: seeded games of random legal moves.
//
//  - SplendorSelfPlay: the generic checker (legal moves accepted exactly, mutations rejected
//    without a change, out-of-turn refusals, replay determinism) with Splendor's invariants
//    and leak checks (every viewer, every step, on the views the checker builds) as its
//    hooks. It builds every seat's view and prompt after every move, which costs 5-18 ms of
//    CPU a game (Release), so it runs 2,000 / 1,000 / 600 games for 2 / 3 / 4 seats by
//    default rather than 10,000 (about 10 s each).
//  - SplendorManyGames: a lean loop with the same Splendor checks, 10,000 games per seat count.
//  - SplendorSelfPlayEvents: every legal move on a copy and every viewer at every step, plus
//    event leaks and view-for-view replay, on fewer games.
//
// PARLOR_SELF_PLAY_GAMES overrides every count; PARLOR_SEED the base seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "games/core/rng.h"
#include "games/splendor/splendor_test_util.h"
#include "games/testing/self_play.h"

namespace parlor::splendor {
namespace {

using testing::event_leaks;
using testing::invariants;
using testing::leaks;

parlor::testing::SelfPlayHooks hooks() {
  parlor::testing::SelfPlayHooks h;
  // Splendor has no playing cards: the CardSet-based check has nothing to find, so the
  // development-card leaks (deck order, blind reserves) are checked in `view_invariants`.
  h.hidden_cards = [](const Game&, Seat) { return CardSet(); };
  h.invariants = [](const Game& game) {
    return invariants(dynamic_cast<const SplendorGame&>(game));
  };
  // The leak check reads the view and prompt the checker has just built for each viewer
  // (spectator and every seat, after every move), so it costs no view of its own.
  h.view_invariants = [](const Game& game, Seat viewer, const Json& view, const Json& prompt) {
    return leaks(dynamic_cast<const SplendorGame&>(game), viewer, view, prompt);
  };
  return h;
}

class SplendorSelfPlay : public ::testing::TestWithParam<int> {};

TEST_P(SplendorSelfPlay, RandomGamesKeepEveryInvariant) {
  const int seats = GetParam();
  const std::uint64_t seed = parlor::testing::test_seed(1);
  const int games = parlor::testing::self_play_games(seats == 2 ? 2000 : seats == 3 ? 1000 : 600);
  std::cout << "seed " << seed << " seats " << seats << " games " << games << std::endl;
  parlor::testing::SelfPlayStats stats;
  const auto start = std::chrono::steady_clock::now();
  const std::string error = parlor::testing::run_self_play(splendor_info(), Json::object(), seats,
                                                           seed, games, hooks(), &stats);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(error, "");
  std::cout << "games " << stats.games << " moves " << stats.moves << " mutations "
            << stats.mutations_checked << " seconds " << took.count() << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Seats, SplendorSelfPlay, ::testing::Values(2, 3, 4));

// Canonical form for comparing moves: a take's gem list sorted (order does not matter).
Json canonical(Json move) {
  if (move.is_object() && move.contains("gems") && move["gems"].is_array()) {
    std::sort(move["gems"].begin(), move["gems"].end());
  }
  return move;
}

// A random variation of a legal move: another card, level or noble id, or a gem swapped.
Json mutated(Json move, Rng& rng) {
  static const char* const kNames[] = {"white", "blue", "green", "red", "black", "gold", "onyx"};
  for (const char* key : {"card", "level", "noble"}) {
    if (move.contains(key)) {
      move[key] = move[key].get<int>() + static_cast<int>(rng.uniform(7)) - 3;
      return move;
    }
  }
  if (move.contains("gems") && move["gems"].is_array()) {
    Json& gems = move["gems"];
    switch (rng.uniform(3)) {
      case 0:
        gems[rng.uniform(gems.size())] = kNames[rng.uniform(7)];
        break;
      case 1:
        gems.erase(gems.begin() + static_cast<std::ptrdiff_t>(rng.uniform(gems.size())));
        break;
      default:
        gems.push_back(kNames[rng.uniform(7)]);
    }
  }
  return move;
}

// The lean loop: 10,000 seeded games per seat count with Splendor's own checks after every
// move -- token and card conservation, no hidden card in a view (one viewer per step, in
// rotation) or in an event, a second legal move and a mutated one applied on a copy
// (accepted exactly when legal, rejections change nothing), and replay determinism.
class SplendorManyGames : public ::testing::TestWithParam<int> {};

TEST_P(SplendorManyGames, SeededGamesKeepInvariants) {
  const int seats = GetParam();
  const std::uint64_t seed = parlor::testing::test_seed(1);
  const int games = parlor::testing::self_play_games(10000);
  std::cout << "seed " << seed << " seats " << seats << " games " << games << std::endl;
  const auto start = std::chrono::steady_clock::now();
  std::int64_t moves = 0;
  for (int g = 0; g < games; ++g) {
    const std::uint64_t game_seed = seed + static_cast<std::uint64_t>(g);
    SplendorGame game(seats, game_seed);
    Rng rng(game_seed ^ 0x51e7d02ULL);
    std::vector<std::pair<Seat, Json>> log;
    while (!game.finished()) {
      ASSERT_EQ(invariants(game), "") << "seed " << game_seed << " step " << log.size();
      const Seat viewer = static_cast<Seat>(log.size() % static_cast<std::size_t>(seats + 1)) - 1;
      ASSERT_EQ(leaks(game, viewer), "") << "seed " << game_seed << " step " << log.size();
      const Seat seat = game.to_act().at(0);
      const Json legal = game.legal_moves(seat);
      ASSERT_FALSE(legal.empty()) << "seed " << game_seed;
      const std::uint64_t hash = game.state_hash();
      {
        SplendorGame copy = game;
        const Json& other = legal[rng.uniform(legal.size())];
        ASSERT_TRUE(copy.apply(seat, other).ok()) << "seed " << game_seed << " " << other.dump();
      }
      {
        const Json candidate = mutated(legal[rng.uniform(legal.size())], rng);
        const Json wanted = canonical(candidate);
        bool is_legal = false;
        for (const Json& m : legal) {
          is_legal = is_legal || (m["action"] == wanted["action"] && canonical(m) == wanted);
        }
        SplendorGame copy = game;
        const auto r = copy.apply(seat, candidate);
        ASSERT_EQ(r.ok(), is_legal) << "seed " << game_seed << " " << candidate.dump() << " "
                                    << r.code() << " " << r.message();
        if (!r.ok()) {
          ASSERT_EQ(copy.state_hash(), hash) << "seed " << game_seed;
        }
      }
      // As a client would send it: through text (numbers come back unsigned).
      const Json move = Json::parse(legal[rng.uniform(legal.size())].dump());
      const auto result = game.apply(seat, move);
      ASSERT_TRUE(result.ok()) << "seed " << game_seed << " " << move.dump();
      ASSERT_EQ(event_leaks(game, result.events()), "") << "seed " << game_seed;
      log.emplace_back(seat, move);
      ASSERT_LT(log.size(), 20000U) << "seed " << game_seed << ": game does not end";
    }
    ASSERT_EQ(invariants(game), "") << "seed " << game_seed;
    ASSERT_EQ(leaks(game), "") << "seed " << game_seed;
    SplendorGame replay(seats, game_seed);
    for (const auto& [seat, move] : log) ASSERT_TRUE(replay.apply(seat, move).ok());
    ASSERT_EQ(replay.state_hash(), game.state_hash()) << "seed " << game_seed;
    moves += static_cast<std::int64_t>(log.size());
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::cout << "games " << games << " moves " << moves << " seconds " << took.count() << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Seats, SplendorManyGames, ::testing::Values(2, 3, 4));

// Events are public: our own loop checks them, every legal move on a clone, and that a
// replay reproduces every seat's view, not just the state hash.
TEST(SplendorSelfPlayEvents, EventsHideBlindCardsAndReplaysMatchViews) {
  const std::uint64_t seed = parlor::testing::test_seed(1);
  const int games = std::max(1, parlor::testing::self_play_games(10000) / 20);
  std::cout << "seed " << seed << " games " << games << std::endl;
  for (int g = 0; g < games; ++g) {
    const std::uint64_t game_seed = seed + static_cast<std::uint64_t>(g);
    const int seats = 2 + g % 3;
    SplendorGame game(seats, game_seed);
    Rng rng(game_seed * 7 + 3);
    std::vector<std::pair<Seat, Json>> log;
    while (!game.finished()) {
      const Seat seat = game.to_act().at(0);
      const Json legal = game.legal_moves(seat);
      ASSERT_FALSE(legal.empty()) << "seed " << game_seed;
      for (const Json& move : legal) {
        SplendorGame copy = game;
        ASSERT_TRUE(copy.apply(seat, move).ok()) << "seed " << game_seed << " " << move.dump();
      }
      ASSERT_EQ(leaks(game), "") << "seed " << game_seed;
      ASSERT_EQ(invariants(game), "") << "seed " << game_seed;
      const Json& move = legal[rng.uniform(legal.size())];
      const auto result = game.apply(seat, move);
      ASSERT_TRUE(result.ok());
      ASSERT_EQ(event_leaks(game, result.events()), "") << "seed " << game_seed;
      log.emplace_back(seat, move);
      ASSERT_LT(log.size(), 20000U) << "seed " << game_seed << ": game does not end";
    }
    SplendorGame replay(seats, game_seed);
    for (const auto& [seat, move] : log) ASSERT_TRUE(replay.apply(seat, move).ok());
    for (Seat viewer = kSpectator; viewer < seats; ++viewer) {
      ASSERT_EQ(replay.view(viewer), game.view(viewer)) << "seed " << game_seed;
    }
    ASSERT_EQ(replay.result(), game.result());
  }
}

}  // namespace
}  // namespace parlor::splendor
