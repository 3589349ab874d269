// Trick-play judgement shared by the Spades and Bid Whist heuristics (and the parts Agram
// uses): who is winning the trick on the table, which of my cards would beat it, and the
// casual player's rule of thumb for a card to follow with — let a winning partner have it,
// otherwise win as cheaply as possible, otherwise throw the cheapest card.
//
// Card order comes from the games' own `tricks::TrickRules` (public rules, not state), so a
// trump contract, downtown order and the jokers are judged exactly as the engine judges them.
#pragma once

#include <optional>
#include <span>

#include "bots/view_reading.h"
#include "games/tricks/tricks.h"

namespace parlor::bots {

// The led suit of a trick so far: the effective suit of the first card that has one.
std::optional<Suit> trick_led_suit(std::span<const TrickCard> trick,
                                   const tricks::TrickRules& rules);

struct TrickWinner {
  Seat seat = 0;
  Card card;
  int strength = 0;
};
// Who would take the trick if it stopped now; nullopt for an empty trick.
std::optional<TrickWinner> trick_winner(std::span<const TrickCard> trick,
                                        const tricks::TrickRules& rules);

// What a card is worth keeping: its strength in its own suit (trumps above side suits, the
// jokers of a trump contract on top, a powerless card at zero). Lower is cheaper to give up.
int keep_value(Card card, const tricks::TrickRules& rules);
// The cheapest card of a non-empty set by keep_value (ties: the lower card index).
Card cheapest(CardSet cards, const tricks::TrickRules& rules);
// The most valuable card of a non-empty set by keep_value.
Card dearest(CardSet cards, const tricks::TrickRules& rules);

struct FollowContext {
  const tricks::TrickRules* rules = nullptr;
  Seat you = 0;
  std::optional<Seat> partner;  // partnership games only
  int seats = 4;
  bool want_trick = true;  // false: try to lose this trick (e.g. the contract is already made)
};
// The card to play to a trick someone else led, from the non-empty set of legal cards.
Card follow_card(CardSet legal, std::span<const TrickCard> trick, const FollowContext& context);

}  // namespace parlor::bots
