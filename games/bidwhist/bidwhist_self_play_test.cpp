// Self-play: thousands of seeded games of random legal moves in each auction variant, checked
// after every move by games/testing (legal set vs apply, no hidden card in any view, prompt or
// event, replay determinism) plus Bid Whist's own invariants below; and an exhaustive check
// that apply accepts exactly the moves legal_moves lists.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

#include "games/bidwhist/bidwhist.h"
#include "games/core/deck.h"
#include "games/core/rng.h"
#include "games/testing/self_play.h"

namespace parlor::bidwhist {
namespace {

using testing::cards_mentioned;

// The checker asks for the hidden cards of all five viewers of one state in a row, and the
// invariants of the same state: full_state() is built and its card places read once per state
// (keyed by its hash).
class StateCache {
 public:
  const Json& state(const Game& game) {
    const std::uint64_t hash = game.state_hash();
    if (!valid_ || hash != hash_) {
      state_ = game.full_state();
      hidden_from_all_ = cards_mentioned(state_["kitty"]) | cards_mentioned(state_["discarded"]);
      for (Seat s = 0; s < kSeats; ++s) {
        hands_[static_cast<std::size_t>(s)] = cards_mentioned(state_["hands"][s]);
      }
      hash_ = hash;
      valid_ = true;
    }
    return state_;
  }

  // What `viewer` may not see, from full_state: other seats' hands (the taken kitty is part
  // of the declarer's hand), the kitty until taken, and the discard (nobody sees it again).
  CardSet hidden_cards(const Game& game, Seat viewer) {
    state(game);
    CardSet hidden = hidden_from_all_;
    for (Seat s = 0; s < kSeats; ++s) {
      if (s != viewer) hidden.add_all(hands_[static_cast<std::size_t>(s)]);
    }
    return hidden;
  }

 private:
  bool valid_ = false;
  std::uint64_t hash_ = 0;
  Json state_;
  CardSet hidden_from_all_;  // the kitty and the discard
  std::array<CardSet, kSeats> hands_;
};

// Every card is in exactly one place; hand sizes fit the phase; books add up.
std::string invariants(const Json& state) {
  CardSet seen;
  int total = 0;
  auto place = [&](const Json& list) {
    const CardSet set = cards_mentioned(list);
    if (seen.intersects(set)) return false;
    seen.add_all(set);
    total += static_cast<int>(list.size());
    return set.size() == static_cast<int>(list.size());
  };
  for (const Json& hand : state["hands"]) {
    if (!place(hand)) return "a card is in two places (hands)";
  }
  if (!place(state["kitty"]) || !place(state["discarded"]) || !place(state["played"])) {
    return "a card is in two places";
  }
  if (total != 54 || seen.size() != 54) return "cards not conserved: " + std::to_string(total);

  const std::string phase = state["phase"];
  const int completed = state["tricks_won"][0].get<int>() + state["tricks_won"][1].get<int>() +
                        state["tricks_won"][2].get<int>() + state["tricks_won"][3].get<int>();
  for (Seat s = 0; s < kSeats; ++s) {
    const auto size = static_cast<int>(state["hands"][s].size());
    int expected = kHandSize;
    if (phase == "discarding" && s == state["contract"]["declarer"]) expected = 18;
    if (phase == "playing" || phase == "hand_over" || phase == "finished") {
      bool in_trick = false;
      for (const Json& p : state["trick"]) in_trick = in_trick || p["seat"] == s;
      expected = kHandSize - completed - (in_trick ? 1 : 0);
    }
    if (size != expected) {
      return "seat " + std::to_string(s) + " holds " + std::to_string(size) + " cards in " + phase +
             ", expected " + std::to_string(expected);
    }
  }
  const bool discarded = !state["discarded"].empty();
  if (discarded != (state["discarded"].size() == kKittySize)) return "discard is not 6 cards";
  if (completed + (discarded ? 1 : 0) > kBooksPerHand) return "more than 13 books";
  const int t0 = state["scores"]["totals"][0];
  const int t1 = state["scores"]["totals"][1];
  if (phase != "finished" &&
      (std::abs(t0) >= state["target"].get<int>() || std::abs(t1) >= state["target"].get<int>())) {
    return "a team passed the target but the game goes on";
  }
  return {};
}

void run(const Json& options, int games, std::uint64_t fallback_seed) {
  const GameInfo info = bidwhist_info();
  const std::uint64_t seed = testing::test_seed(fallback_seed);
  std::cout << "bidwhist self-play " << options.dump() << " seed " << seed << "\n";
  testing::SelfPlayHooks hooks;
  auto cache = std::make_shared<StateCache>();
  hooks.hidden_cards = [cache](const Game& game, Seat viewer) {
    return cache->hidden_cards(game, viewer);
  };
  hooks.invariants = [cache](const Game& game) { return invariants(cache->state(game)); };
  testing::SelfPlayStats stats;
  const auto start = std::chrono::steady_clock::now();
  const std::string failure = testing::run_self_play(
      info, options, kSeats, seed, testing::self_play_games(games), hooks, &stats);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(failure, "");
  std::cout << "  " << stats.games << " games, " << stats.moves << " moves, "
            << stats.mutations_checked << " mutations, " << took.count() << " s\n";
}

TEST(BidWhistSelfPlay, OnceAround) { run({{"auction", "once_around"}}, 10000, 1); }

TEST(BidWhistSelfPlay, UntilPassed) { run({{"auction", "until_passed"}}, 10000, 100001); }

TEST(BidWhistSelfPlay, ShortAndLongTargets) {
  run({{"target", 1}}, 1000, 200001);
  run({{"auction", "until_passed"}, {"target", 21}}, 200, 300001);
}

// Every move a client could send in the current phase: each bid and pass, each declaration,
// each card, the deal. apply must accept exactly those legal_moves lists.
std::vector<Json> candidate_moves() {
  std::vector<Json> moves = {{{"action", "pass"}}, {{"action", "deal"}}};
  for (int books = 1; books <= 9; ++books) {
    for (const char* type : {"uptown", "downtown", "no_trump"}) {
      moves.push_back({{"action", "bid"}, {"books", books}, {"type", type}});
    }
  }
  for (const char* suit : {"C", "D", "H", "S"})
    moves.push_back({{"action", "declare"}, {"trump", suit}});
  for (const char* d : {"uptown", "downtown"})
    moves.push_back({{"action", "declare"}, {"direction", d}});
  for (int i = 0; i < Card::kIndexCount; ++i) {
    moves.push_back({{"action", "play"}, {"card", Card::from_index(i).to_string()}});
  }
  return moves;
}

// A discard of `count` cards: `held` of them from the hand, the rest from outside it.
Json discard_of(CardSet hand, int count, int held, Rng& rng) {
  std::vector<Card> in = hand.to_vector();
  std::vector<Card> out = (deck_with_jokers() - hand).to_vector();
  rng.shuffle(std::span<Card>(in));
  rng.shuffle(std::span<Card>(out));
  Json cards = Json::array();
  for (int i = 0; i < count; ++i) {
    cards.push_back((i < held ? in[static_cast<std::size_t>(i)] : out[static_cast<std::size_t>(i)])
                        .to_string());
  }
  return {{"action", "discard"}, {"cards", cards}};
}

TEST(BidWhistSelfPlay, ApplyAcceptsExactlyTheLegalMoves) {
  const GameInfo info = bidwhist_info();
  const std::vector<Json> candidates = candidate_moves();
  const std::uint64_t base = testing::test_seed(500001);
  std::cout << "bidwhist legal-set agreement seed " << base << "\n";
  constexpr int games = 300;
  for (int g = 0; g < games; ++g) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(g);
    const Json options = {{"auction", g % 2 ? "until_passed" : "once_around"}, {"target", 7}};
    auto game = info.create(options, kSeats, seed);
    Rng rng(seed);
    std::vector<std::pair<Seat, Json>> log;
    while (!game->finished()) {
      const Seat seat = game->to_act().front();
      const Json legal = game->legal_moves(seat);
      std::set<Json> legal_set(legal.begin(), legal.end());
      const Json before = game->full_state();
      bool compared = false;
      for (const Json& move : candidates) {
        auto copy = game->clone();
        const bool ok = copy->apply(seat, move).ok();
        ASSERT_EQ(ok, legal_set.contains(move)) << "seed " << seed << " " << move.dump();
        // state_hash() is a byte encoding, not the JSON: check one rejection per step against
        // the full JSON state too.
        if (!ok && !compared) {
          ASSERT_EQ(copy->full_state(), before) << "seed " << seed << " " << move.dump();
          compared = true;
        }
      }
      Json chosen;
      if (legal.empty()) {
        const auto* bw = dynamic_cast<const BidWhistGame*>(game.get());
        ASSERT_NE(bw, nullptr);
        const CardSet hand = bw->hand(seat);
        for (int count = 0; count <= 8; ++count) {
          const bool ok = game->clone()->apply(seat, discard_of(hand, count, count, rng)).ok();
          ASSERT_EQ(ok, count == kKittySize) << "seed " << seed << " discard of " << count;
        }
        ASSERT_FALSE(game->clone()->apply(seat, discard_of(hand, 6, 5, rng)).ok());
        chosen = discard_of(hand, kKittySize, kKittySize, rng);
      } else {
        chosen = legal[rng.uniform(legal.size())];
      }
      ASSERT_TRUE(game->apply(seat, chosen).ok()) << "seed " << seed << " " << chosen.dump();
      log.emplace_back(seat, chosen);
    }
    auto replay = info.create(options, kSeats, seed);
    for (const auto& [seat, move] : log) ASSERT_TRUE(replay->apply(seat, move).ok());
    ASSERT_EQ(replay->full_state(), game->full_state()) << "seed " << seed;
    ASSERT_EQ(replay->state_hash(), game->state_hash()) << "seed " << seed;
  }
}

}  // namespace
}  // namespace parlor::bidwhist
