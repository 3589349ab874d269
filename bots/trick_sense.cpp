#include "bots/trick_sense.h"

namespace parlor::bots {

std::optional<Suit> trick_led_suit(std::span<const TrickCard> trick,
                                   const tricks::TrickRules& rules) {
  for (const TrickCard& play : trick) {
    if (auto suit = rules.effective_suit(play.card)) return suit;
  }
  return std::nullopt;
}

std::optional<TrickWinner> trick_winner(std::span<const TrickCard> trick,
                                        const tricks::TrickRules& rules) {
  if (trick.empty()) return std::nullopt;
  const auto led = trick_led_suit(trick, rules);
  TrickWinner best{trick[0].seat, trick[0].card, rules.strength(trick[0].card, led)};
  for (const TrickCard& play : trick.subspan(1)) {
    const int strength = rules.strength(play.card, led);
    if (strength > best.strength) best = {play.seat, play.card, strength};  // ties: earlier wins
  }
  return best;
}

int keep_value(Card card, const tricks::TrickRules& rules) {
  return rules.strength(card, rules.effective_suit(card));
}

Card cheapest(CardSet cards, const tricks::TrickRules& rules) {
  Card best = cards.lowest();
  int best_value = keep_value(best, rules);
  for (Card card : cards) {
    const int value = keep_value(card, rules);
    if (value < best_value) {
      best = card;
      best_value = value;
    }
  }
  return best;
}

Card dearest(CardSet cards, const tricks::TrickRules& rules) {
  Card best = cards.lowest();
  int best_value = keep_value(best, rules);
  for (Card card : cards) {
    const int value = keep_value(card, rules);
    if (value > best_value) {
      best = card;
      best_value = value;
    }
  }
  return best;
}

Card follow_card(CardSet legal, std::span<const TrickCard> trick, const FollowContext& context) {
  const tricks::TrickRules& rules = *context.rules;
  const auto winner = trick_winner(trick, rules);
  if (!winner) return cheapest(legal, rules);
  const auto led = trick_led_suit(trick, rules);

  // The cards that would take the trick from whoever holds it now. A card played when nothing
  // suited has been led (a joker lead in no trump) sets the suit itself.
  CardSet winners;
  for (Card card : legal) {
    const auto own_led = led ? led : rules.effective_suit(card);
    if (rules.strength(card, own_led) > winner->strength) winners.add(card);
  }
  const bool last_to_play = static_cast<int>(trick.size()) == context.seats - 1;
  const bool partner_winning = context.partner && winner->seat == *context.partner;

  if (!context.want_trick) {
    // Duck: the best card that still loses, else the cheapest winner.
    const CardSet losers = legal - winners;
    if (!losers.empty()) return dearest(losers, rules);
    return cheapest(legal, rules);
  }
  if (partner_winning) {
    // Partner holds it with a card that only a trump (or a higher trump) could beat, or we are
    // last: don't overtake.
    const bool partner_safe = last_to_play || winner->card.is_joker() ||
                              winner->card.rank() == Rank::kAce ||
                              (led && rules.effective_suit(winner->card) != led);
    if (partner_safe || winners.empty()) {
      const CardSet losers = legal - winners;
      return cheapest(losers.empty() ? legal : losers, rules);
    }
  }
  if (!winners.empty()) return cheapest(winners, rules);
  return cheapest(legal, rules);
}

}  // namespace parlor::bots
