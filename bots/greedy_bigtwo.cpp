// Greedy Big Two: every legal play gets a cost and the cheapest is played.
//
// - Shed low cards and low combinations first: a play costs its cards' average Big Two
//   strength, less a bonus per card shed and for getting rid of the hand's lowest card.
// - Keep control: twos and aces cost extra, and so do strong five-card hands (full house and
//   up, or any five-card hand topped by a high card) while the hand is still long.
// - Don't split a pair or triple to make a smaller play.
// - On the table, pass rather than spend a two or an ace on a small play, unless an opponent is
//   about to go out or the hand is nearly empty.
// - When an opponent holds a single card, lead combinations, or the highest single.
// - A play that empties the hand is always taken.
#include <algorithm>
#include <array>

#include "bots/greedy.h"
#include "bots/view_reading.h"
#include "games/bigtwo/hands.h"

namespace parlor::bots {
namespace {

using bigtwo::Combination;

struct Situation {
  bigtwo::HandRules rules;
  CardSet hand;
  Card lowest;
  bool table = false;        // a play to beat (else: a fresh lead)
  int fewest_opponent = 13;  // cards held by the opponent closest to going out
};

constexpr int kTwo = 12;
constexpr int kAce = 11;

bigtwo::HandRules rules_of(const Json& view) {
  bigtwo::HandRules rules;
  if (view.value("suit_order", "") == "spades_hearts_diamonds_clubs") {
    rules.suit_order = bigtwo::SuitOrder::kSpadesHeartsDiamondsClubs;
  }
  if (view.value("straights", "") == "no_twos") rules.straights = bigtwo::StraightSet::kNoTwos;
  return rules;
}

int rank_strength(Card card) { return bigtwo::rank_strength(card.rank()); }

double play_cost(CardSet cards, const bigtwo::Hand& hand, const Situation& s) {
  const CardSet after = s.hand - cards;
  if (after.empty()) return -1000;  // going out wins the deal
  const bool urgent = s.fewest_opponent <= 2 || after.size() <= 3;
  double strength_sum = 0;
  int top = 0;
  for (Card card : cards) {
    strength_sum += bigtwo::card_strength(card, s.rules.suit_order);
    top = std::max(top, rank_strength(card));
  }
  const int size = cards.size();
  double cost = strength_sum / size - 6.0 * size;
  if (cards.contains(s.lowest)) cost -= 10;
  // Splitting a pair or triple for a smaller play wastes it.
  std::array<int, 13> held{};
  std::array<int, 13> used{};
  for (Card card : s.hand) ++held[static_cast<std::size_t>(rank_strength(card))];
  for (Card card : cards) ++used[static_cast<std::size_t>(rank_strength(card))];
  for (std::size_t r = 0; r < held.size(); ++r) {
    if (used[r] > 0 && used[r] < held[r] && held[r] <= 3) cost += 8;
  }
  if (!urgent) {
    for (Card card : cards) {
      const int rank = rank_strength(card);
      if (rank == kTwo) cost += 25;
      if (rank == kAce) cost += 8;
    }
    const bool control_five =
        size == 5 && (hand.combination >= Combination::kFullHouse || top >= 9);
    if (control_five && after.size() > 5) cost += 12;
  }
  // An opponent on one card wins any single we lead low: lead combinations or the top single.
  if (s.fewest_opponent == 1 && !s.table && size == 1) {
    cost += 40 - bigtwo::card_strength(cards.lowest(), s.rules.suit_order);
  }
  return cost;
}

// On the table: holding back is better than paying with the cards that keep control.
bool should_hold_back(CardSet cards, const Situation& s) {
  const CardSet after = s.hand - cards;
  if (after.empty() || s.fewest_opponent <= 2 || after.size() <= 4) return false;
  int top = 0;
  for (Card card : cards) top = std::max(top, rank_strength(card));
  if (top == kTwo) return true;
  return top >= kAce && cards.size() <= 2;
}

class GreedyBigTwo final : public Strategy {
 public:
  std::string_view name() const override { return "greedy"; }

  Json choose(const Json& view, const Json& prompt, Rng& rng) override {
    const auto& legal = legal_list(prompt);
    if (legal.empty()) return random_move(prompt, rng);
    if (!view.is_object()) return legal.front();  // no view: no judgement
    Situation s;
    s.rules = rules_of(view);
    s.hand = read_cards(view.value("hand", Json()));
    if (s.hand.empty()) return legal.front();
    s.lowest = bigtwo::lowest_card(s.hand, s.rules.suit_order);
    s.table = view.contains("table") && view["table"].is_object();
    const Seat you = read_int(view, "you", 0);
    if (const auto counts = view.find("hand_counts"); counts != view.end() && counts->is_array()) {
      for (std::size_t seat = 0; seat < counts->size(); ++seat) {
        const Json& count = (*counts)[seat];
        if (static_cast<Seat>(seat) != you && count.is_number_integer() && count.get<int>() > 0) {
          s.fewest_opponent = std::min(s.fewest_opponent, count.get<int>());
        }
      }
    }

    const Json* best = nullptr;
    const Json* pass = nullptr;
    CardSet best_cards;
    double best_cost = 0;
    for (const Json& move : legal) {
      if (move.value("action", "") == "pass") {
        pass = &move;
        continue;
      }
      const CardSet cards = read_cards(move.value("cards", Json()));
      const bigtwo::Hand hand = bigtwo::classify(cards, s.rules);
      if (!hand.valid()) continue;
      const double cost = play_cost(cards, hand, s);
      if (!best || cost < best_cost) {
        best = &move;
        best_cards = cards;
        best_cost = cost;
      }
    }
    if (!best) return pass ? *pass : legal.front();
    if (pass && s.table && should_hold_back(best_cards, s)) return *pass;
    return *best;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_greedy_bigtwo() { return std::make_unique<GreedyBigTwo>(); }

}  // namespace parlor::bots
