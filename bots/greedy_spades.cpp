// Greedy Spades: bid from high cards and spade length; in play let a winning partner have the
// trick, otherwise win it as cheaply as possible, play low when it is lost, and stop taking
// tricks (bags) once the team's contract is made.
#include <algorithm>
#include <array>
#include <cmath>

#include "bots/greedy.h"
#include "bots/trick_sense.h"

namespace parlor::bots {
namespace {

// Tricks a hand should take with spades trump, as a casual player counts them.
int estimate_tricks(CardSet hand) {
  const CardSet spades = hand.of_suit(Suit::kSpades);
  const int spade_count = spades.size();
  double tricks = 0;
  if (spades.contains(Card(Rank::kAce, Suit::kSpades))) tricks += 1;
  if (spades.contains(Card(Rank::kKing, Suit::kSpades))) tricks += spade_count >= 2 ? 1 : 0.5;
  if (spades.contains(Card(Rank::kQueen, Suit::kSpades))) tricks += spade_count >= 3 ? 1 : 0.3;
  tricks += std::max(0, spade_count - 3);  // long trumps take tricks late in the hand
  for (Suit suit : {Suit::kClubs, Suit::kDiamonds, Suit::kHearts}) {
    const CardSet cards = hand.of_suit(suit);
    const int length = cards.size();
    if (cards.contains(Card(Rank::kAce, suit))) tricks += length <= 5 ? 1 : 0.5;
    if (cards.contains(Card(Rank::kKing, suit)) && length >= 2 && length <= 4) tricks += 0.8;
    if (cards.contains(Card(Rank::kQueen, suit)) && length >= 3 && length <= 4) tricks += 0.3;
    // A short side suit lets spades ruff, if there are spades to spare.
    if (spade_count >= 3 && length == 0) tricks += 1;
    if (spade_count >= 3 && length == 1) tricks += 0.5;
  }
  return std::clamp(static_cast<int>(std::lround(tricks)), 1, 13);
}

Json choose_bid(const CardSet hand, const Json& prompt) {
  const int want = estimate_tricks(hand);
  const Json* best = nullptr;
  int best_gap = 99;
  for (const Json& move : legal_list(prompt)) {
    const auto it = move.find("tricks");
    if (it == move.end() || !it->is_number_integer()) continue;
    const int tricks = it->get<int>();
    const int gap = tricks == 0 ? 98 : std::abs(tricks - want);  // never nil
    if (gap < best_gap) {
      best = &move;
      best_gap = gap;
    }
  }
  return best ? *best : legal_list(prompt).front();
}

Card choose_lead(CardSet legal, const tricks::TrickRules& rules, bool want_trick) {
  if (!want_trick) return cheapest(legal, rules);
  // A side-suit ace wins now.
  for (Suit suit : {Suit::kClubs, Suit::kDiamonds, Suit::kHearts}) {
    if (legal.contains(Card(Rank::kAce, suit))) return Card(Rank::kAce, suit);
  }
  const CardSet side = legal - legal.of_suit(Suit::kSpades);
  if (side.empty()) return dearest(legal, rules);  // only spades: draw trumps from the top
  // Lead low from the shortest side suit, to be void in it sooner and ruff.
  Suit shortest = Suit::kClubs;
  int shortest_length = 99;
  for (Suit suit : {Suit::kClubs, Suit::kDiamonds, Suit::kHearts}) {
    const int length = side.of_suit(suit).size();
    if (length > 0 && length < shortest_length) {
      shortest = suit;
      shortest_length = length;
    }
  }
  return cheapest(side.of_suit(shortest), rules);
}

class GreedySpades final : public Strategy {
 public:
  std::string_view name() const override { return "greedy"; }

  Json choose(const Json& view, const Json& prompt, Rng& rng) override {
    const auto& legal = legal_list(prompt);
    if (legal.empty()) return random_move(prompt, rng);
    if (!view.is_object()) return legal.front();  // no view: no judgement
    const std::string phase = view.value("phase", "");
    const Json& first = legal.front();
    if (phase == "look") {
      for (const Json& move : legal) {
        if (move.value("action", "") == "look") return move;
      }
      return first;
    }
    const CardSet hand = read_cards(view.value("hand", Json()));
    if (phase == "bid") return choose_bid(hand, prompt);
    if (phase != "play") return first;

    CardSet playable;
    for (const Json& move : legal) {
      if (auto card = read_card(move.value("card", Json()))) playable.add(*card);
    }
    if (playable.empty()) return first;
    const Seat you = read_int(view, "you", 0);
    const tricks::StandardTrickRules rules(Suit::kSpades);
    const bool want_trick = !contract_made(view, you);
    const auto trick = read_trick(view);
    const Card card =
        trick.empty()
            ? choose_lead(playable, rules, want_trick)
            : follow_card(playable, trick, {&rules, you, tricks::partner_of(you), 4, want_trick});
    const Json* move = move_with_card(prompt, "card", card);
    return move ? *move : first;
  }

 private:
  // The team already has the tricks it bid: more would only be bags.
  static bool contract_made(const Json& view, Seat you) {
    const Json& contracts = view.value("contracts", Json());
    const Json& team_tricks = view.value("team_tricks", Json());
    const auto team = static_cast<std::size_t>(tricks::team_of(you));
    if (!contracts.is_array() || !team_tricks.is_array() || contracts.size() <= team ||
        team_tricks.size() <= team || !contracts[team].is_number_integer() ||
        !team_tricks[team].is_number_integer()) {
      return false;
    }
    return team_tricks[team].get<int>() >= contracts[team].get<int>();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_greedy_spades() { return std::make_unique<GreedySpades>(); }

}  // namespace parlor::bots
