// Greedy Agram: only the sixth trick counts, so keep the best card of the longest suit (the
// "keeper") for it and spend everything else first: follow low, throw low off-suit cards from
// short suits, lead low. On the fifth trick try to win cheaply, so as to lead the keeper to the
// last trick, where a led card can only be beaten by a higher card of its own suit.
#include "bots/greedy.h"
#include "bots/trick_sense.h"

namespace parlor::bots {
namespace {

// The card to save for the last trick: the top card of the longest suit, ties to the higher
// top card (a long suit is one the others are short in).
Card keeper_of(CardSet hand) {
  Card best = hand.highest();
  int best_length = -1;
  for (Suit suit : {Suit::kClubs, Suit::kDiamonds, Suit::kHearts, Suit::kSpades}) {
    const CardSet cards = hand.of_suit(suit);
    if (cards.empty()) continue;
    const Card top = cards.highest();
    const int length = cards.size();
    if (length > best_length || (length == best_length && top.rank() > best.rank())) {
      best = top;
      best_length = length;
    }
  }
  return best;
}

// Lowest rank first; among equal ranks the card from the shorter suit (to void it).
Card lowest_from_short_suit(CardSet cards, CardSet hand) {
  Card best = cards.lowest();
  for (Card card : cards) {
    if (card.rank() < best.rank() ||
        (card.rank() == best.rank() &&
         hand.of_suit(card.suit()).size() < hand.of_suit(best.suit()).size())) {
      best = card;
    }
  }
  return best;
}

Card choose_card(CardSet hand, CardSet legal, const std::vector<TrickCard>& trick) {
  if (legal.size() == 1) return legal.lowest();
  const Card keeper = keeper_of(hand);
  const CardSet spendable =
      legal.contains(keeper) && legal.size() > 1 ? legal - CardSet{keeper} : legal;
  const tricks::StandardTrickRules rules;  // no trump, aces high
  const bool fifth_trick = hand.size() == 2;
  if (trick.empty()) {
    // Leading to trick five with the keeper in reserve: lead the other card. Otherwise lead low.
    return lowest_from_short_suit(spendable, hand);
  }
  if (fifth_trick) {
    // Winning the fifth trick means leading the keeper to the sixth: win it if it is cheap.
    const auto winner = trick_winner(trick, rules);
    const auto led = trick_led_suit(trick, rules);
    for (Card card : spendable) {
      if (winner && rules.strength(card, led) > winner->strength) return card;
    }
  }
  return lowest_from_short_suit(spendable, hand);
}

class GreedyAgram final : public Strategy {
 public:
  std::string_view name() const override { return "greedy"; }

  Json choose(const Json& view, const Json& prompt, Rng& rng) override {
    const auto& legal = legal_list(prompt);
    if (legal.empty()) return random_move(prompt, rng);
    if (!view.is_object()) return legal.front();  // no view: no judgement
    CardSet playable;
    for (const Json& move : legal) {
      if (auto card = read_card(move.value("card", Json()))) playable.add(*card);
    }
    if (playable.empty()) return legal.front();  // deal
    const CardSet hand = read_cards(view.value("hand", Json())) | playable;
    const Card card = choose_card(hand, playable, read_trick(view));
    const Json* move = move_with_card(prompt, "card", card);
    return move ? *move : legal.front();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_greedy_agram() { return std::make_unique<GreedyAgram>(); }

}  // namespace parlor::bots
