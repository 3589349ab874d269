// Self-play invariants for Agram with 2 to 5 seats: random legal games checked after every move
// by the shared checker, plus conservation of the 35 cards.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "games/agram/agram.h"
#include "games/testing/self_play.h"

namespace parlor::agram {
namespace {

CardSet cards_of(const Json& array) { return testing::cards_mentioned(array); }

// What the hooks need from full_state(), parsed once per state (the checker asks for every
// viewer of the same state in a row, then for the invariants).
struct ParsedState {
  std::uint64_t hash = 0;
  bool valid = false;
  std::vector<CardSet> hands;
  CardSet undealt, played, trick;
  int trick_size = 0;
  Seat leader = 0;
  int tricks_won = 0;
};

const ParsedState& parse(ParsedState& cache, const Game& game) {
  const std::uint64_t hash = game.state_hash();
  if (cache.valid && cache.hash == hash) return cache;
  const Json state = game.full_state();
  cache.hands.clear();
  for (const Json& hand : state["hands"]) cache.hands.push_back(cards_of(hand));
  cache.undealt = cards_of(state["undealt"]);
  cache.played = cards_of(state["played"]);
  cache.trick = cards_of(state["trick"]);
  cache.trick_size = static_cast<int>(state["trick"].size());
  cache.leader = state["leader"].get<int>();
  cache.tricks_won = 0;
  for (const Json& n : state["tricks_won"]) cache.tricks_won += n.get<int>();
  cache.hash = hash;
  cache.valid = true;
  return cache;
}

// Other seats' hands and the undealt cards (a spectator: every hand too).
CardSet hidden_cards(const ParsedState& state, Seat viewer) {
  CardSet hidden = state.undealt;
  for (std::size_t s = 0; s < state.hands.size(); ++s) {
    if (static_cast<Seat>(s) != viewer) hidden.add_all(state.hands[s]);
  }
  return hidden;
}

std::string card_conservation(const ParsedState& state) {
  std::vector<std::pair<std::string, CardSet>> places;
  for (std::size_t s = 0; s < state.hands.size(); ++s) {
    places.emplace_back("hand " + std::to_string(s), state.hands[s]);
  }
  places.emplace_back("the undealt cards", state.undealt);
  places.emplace_back("the played tricks", state.played);
  places.emplace_back("the trick", state.trick);
  if (auto broken = parlor::testing::check_card_places(places, agram_deck()); !broken.empty()) {
    return broken;
  }
  const int seats = static_cast<int>(state.hands.size());
  if (state.played.size() != seats * state.tricks_won) return "played cards != seats x tricks";
  for (Seat s = 0; s < seats; ++s) {
    const bool played_to_trick = (s - state.leader + seats) % seats < state.trick_size;
    const int held = state.hands[static_cast<std::size_t>(s)].size();
    if (held != kHandSize - state.tricks_won - (played_to_trick ? 1 : 0)) {
      return "seat " + std::to_string(s) + " holds " + std::to_string(held) + " cards";
    }
  }
  return {};
}

void run(const Json& options, int seats, int default_games) {
  const std::uint64_t seed = testing::test_seed(1);
  const int games = testing::self_play_games(default_games);
  std::cout << "seed " << seed << " seats " << seats << " options " << options.dump() << "\n";
  auto cache = std::make_shared<ParsedState>();
  testing::SelfPlayHooks hooks;
  hooks.hidden_cards = [cache](const Game& game, Seat viewer) {
    return hidden_cards(parse(*cache, game), viewer);
  };
  hooks.invariants = [cache](const Game& game) { return card_conservation(parse(*cache, game)); };
  testing::SelfPlayStats stats;
  const auto start = std::chrono::steady_clock::now();
  const std::string error =
      testing::run_self_play(agram_info(), options, seats, seed, games, hooks, &stats);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(error, "");
  EXPECT_EQ(stats.games, games);
  std::cout << "games " << stats.games << " moves " << stats.moves << " seconds " << elapsed.count()
            << "\n";
}

TEST(AgramSelfPlay, TwoSeats) { run(Json::object(), 2, 10000); }
TEST(AgramSelfPlay, FourSeats) { run(Json::object(), 4, 10000); }
TEST(AgramSelfPlay, FiveSeats) { run(Json::object(), 5, 10000); }
// Several deals per game (the deal_over step, dealer rotation): a game is about eight times
// as long as a one-deal game, so fewer games keep the suite's time in check.
TEST(AgramSelfPlay, ThreeSeatsTargetThree) { run({{"target", 3}}, 3, 2000); }

}  // namespace
}  // namespace parlor::agram
