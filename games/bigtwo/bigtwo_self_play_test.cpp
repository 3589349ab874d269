// Self-play: seeded games of random legal moves for 2, 3 and 4 players, checking after
// every move what the generic checker checks (legal moves accepted, mutations refused with
// the state unchanged, replay from seed + log, no hidden card in any view, prompt or event)
// plus Big Two's own invariants: every card in exactly one place (a hand, the undealt
// rest, or played this deal), the hand counts and own hand in every view, no hand in the
// spectator view, the hands left shown by a finished game and only then, and every typed
// legal play passing the typed validator.
// Replay a failure with PARLOR_SEED=<seed> (and PARLOR_SELF_PLAY_GAMES=1).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <iostream>

#include "games/bigtwo/bigtwo.h"
#include "games/testing/self_play.h"

namespace parlor::bigtwo {
namespace {

CardSet card_set(const Json& list) { return testing::cards_mentioned(list); }

// Where every card is, read from full_state() once per state: the checker asks for the
// hidden cards of every viewer in turn, and the invariants want the same reading.
struct Placement {
  std::array<CardSet, kMaxSeats> hands{};
  CardSet undealt;
  CardSet played;
  // The play that ended the previous deal and the hands then counted, while the new deal has
  // seen no play yet: its event showed them to everyone, yet its cards are now in the new hands.
  CardSet just_ended;
  // Once the game is over, the cards left in its last deal's hands: laid face up to be
  // counted, every view and the result show them.
  CardSet counted;
};

const Placement& placement(const Game& game) {
  thread_local std::uint64_t cached_hash = 0;
  thread_local const Game* cached_game = nullptr;
  thread_local Placement cached;
  const std::uint64_t hash = game.state_hash();
  if (cached_game != &game || cached_hash != hash) {
    const Json state = game.full_state();
    cached.undealt = card_set(state["undealt"]);
    cached.played = card_set(state["played"]);
    for (Seat s = 0; s < game.seat_count(); ++s) cached.hands[s] = card_set(state["hands"][s]);
    const Json& results = state["deal_results"];
    cached.just_ended = CardSet();
    cached.counted = CardSet();
    if (!results.empty() && state["finished"].get<bool>()) {
      cached.counted = card_set(results.back()["hands"]);
    } else if (!results.empty() && cached.played.empty()) {
      cached.just_ended =
          card_set(results.back()["final_play"]) | card_set(results.back()["hands"]);
    }
    cached_game = &game;
    cached_hash = hash;
  }
  return cached;
}

// For a seated viewer: the other hands and the undealt cards; for a spectator: all of them,
// except, between deals, the cards of the deal-ending play (the checker tests the events of
// a move against the spectator's hidden cards after it). The invariants below still hold
// the spectator view to no hand card at all.
CardSet hidden_cards(const Game& game, Seat viewer) {
  const Placement& where = placement(game);
  CardSet hidden = where.undealt;
  for (Seat s = 0; s < game.seat_count(); ++s) {
    if (s != viewer) hidden.add_all(where.hands[s]);
  }
  if (viewer == kSpectator) hidden = hidden - where.just_ended;
  return hidden - where.counted;
}

std::string invariants(const Game& game) {
  const auto& big_two = dynamic_cast<const BigTwoGame&>(game);
  const Placement& where = placement(game);
  const auto& hands = where.hands;
  CardSet seen = where.undealt | where.played;
  int total = where.undealt.size() + where.played.size();
  for (Seat s = 0; s < game.seat_count(); ++s) {
    seen.add_all(hands[s]);
    total += hands[s].size();
  }
  if (total != 52 || seen.size() != 52) {
    return "cards not conserved: " + std::to_string(total) + " placed, " +
           std::to_string(seen.size()) + " distinct";
  }
  // Every typed legal play passes the typed validator (the JSON layer is checked by the
  // generic checker).
  if (!game.finished()) {
    const Seat seat = big_two.turn();
    std::vector<Play> plays;
    big_two.legal_plays(seat, plays);
    for (const Play& play : plays) {
      Hand hand;
      if (auto rejected = big_two.check_play(seat, play.cards, hand)) {
        return "typed legal play rejected: " + rejected->message();
      }
      if (hand.strength != play.hand.strength || hand.combination != play.hand.combination) {
        return "generator and classifier disagree";
      }
    }
  }
  return {};
}

// What each viewer is shown, checked on the view the generic checker has just built for it
// (after every move and once the game is over): the hand counts, the counted hands shown by
// a finished game only, no hand in the spectator view, a seat's own hand sorted low to high.
std::string view_invariants(const Game& game, Seat viewer, const Json& view, const Json&) {
  const auto& big_two = dynamic_cast<const BigTwoGame&>(game);
  const SuitOrder order = big_two.rules().suit_order;
  const Placement& where = placement(game);
  const auto& hands = where.hands;
  for (Seat s = 0; s < game.seat_count(); ++s) {
    if (view["hand_counts"][s] != hands[s].size()) return "hand_counts wrong in a view";
  }
  // The counted hands: shown by the finished game exactly as they were, never while a next
  // deal is played.
  const Json& last_deal = view["last_deal"];
  if (game.finished()) {
    for (Seat s = 0; s < game.seat_count(); ++s) {
      if (card_set(last_deal["hands"][s]) != hands[s]) return "the hands shown are not those left";
    }
  } else if (last_deal.is_object() && last_deal.contains("hands")) {
    return "a view shows the counted hands while a deal is played";
  }
  if (viewer == kSpectator) {
    if (view.contains("hand")) return "spectator view has a hand";
    CardSet in_hands = where.undealt;
    for (Seat s = 0; s < game.seat_count(); ++s) in_hands.add_all(hands[s]);
    if (testing::cards_mentioned(view).intersects(in_hands - where.counted)) {
      return "spectator view mentions a hidden card";
    }
    return {};
  }
  if (card_set(view["hand"]) != hands[viewer] ||
      static_cast<int>(view["hand"].size()) != hands[viewer].size()) {
    return "view of seat " + std::to_string(viewer) + " shows the wrong hand";
  }
  int last = -1;
  for (const Json& card : view["hand"]) {
    const int strength = card_strength(*parse_card(card.get<std::string>()), order);
    if (strength <= last) return "hand not sorted low to high";
    last = strength;
  }
  return {};
}

void run(const Json& options, int seats, int fallback_games, bool check_every_legal = false) {
  const std::uint64_t seed = testing::test_seed(1);
  const int games = testing::self_play_games(fallback_games);
  std::cout << "seed " << seed << " games " << games << " seats " << seats << " options "
            << options.dump() << std::endl;
  testing::SelfPlayHooks hooks;
  hooks.hidden_cards = hidden_cards;
  hooks.invariants = invariants;
  hooks.view_invariants = view_invariants;
  testing::SelfPlayStats stats;
  const auto start = std::chrono::steady_clock::now();
  const std::string failure = testing::run_self_play(bigtwo_info(), options, seats, seed, games,
                                                     hooks, &stats, check_every_legal);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(failure, "");
  std::cout << "games " << stats.games << " moves " << stats.moves << " mutations "
            << stats.mutations_checked << " seconds " << took.count() << std::endl;
}

TEST(BigTwoSelfPlay, TwoPlayers) { run(Json::object(), 2, 10000); }
TEST(BigTwoSelfPlay, ThreePlayers) { run(Json::object(), 3, 10000); }
TEST(BigTwoSelfPlay, FourPlayers) { run(Json::object(), 4, 10000); }

// Variants and several deals: fewer games, the rules they change are narrow.
TEST(BigTwoSelfPlay, VariantsAndSeveralDeals) {
  const Json variants = {
      {"suit_order", "spades_hearts_diamonds_clubs"}, {"straights", "no_twos"}, {"deals", 3}};
  for (int seats = 2; seats <= 4; ++seats) run(variants, seats, 300);
}

// Every legal move applied on a clone at every step (slower, so fewer games).
TEST(BigTwoSelfPlay, EveryLegalMoveIsAccepted) {
  for (int seats = 2; seats <= 4; ++seats) run(Json::object(), seats, 200, true);
}

}  // namespace
}  // namespace parlor::bigtwo
