// Small readers the heuristic strategies share: cards and seats out of a seat's view and
// prompt. Everything here reads only what the seat was sent; malformed input reads as
// "nothing" (an empty set, a null pointer) so a strategy falls back to a legal move instead of
// throwing.
#pragma once

#include <optional>
#include <vector>

#include "games/core/card.h"
#include "games/core/card_set.h"
#include "games/core/game.h"

namespace parlor::bots {

// The card a JSON string names, or nullopt.
std::optional<Card> read_card(const Json& value);
// The cards of a JSON array of card strings (anything else is skipped).
CardSet read_cards(const Json& value);
// view[field] as an integer, or `fallback` when missing or not a number.
int read_int(const Json& view, const char* field, int fallback);
// object[key], or null when `object` is not an object or has no such key.
const Json& field(const Json& object, const char* key);
// array[index], or null when `array` is not an array or is shorter.
const Json& item(const Json& array, std::size_t index);
// array[index] as an integer, or `fallback`.
int read_int_at(const Json& array, std::size_t index, int fallback);

// The `legal` list of a prompt (empty when the prompt has none).
const Json::array_t& legal_list(const Json& prompt);

// One card played to the trick in progress.
struct TrickCard {
  Seat seat = 0;
  Card card;
};
// view["trick"] as played so far ([{"seat":0,"card":"AS"},...]).
std::vector<TrickCard> read_trick(const Json& view);

// The first legal move whose `field` names `card`, or nullptr.
const Json* move_with_card(const Json& prompt, const char* field, Card card);

}  // namespace parlor::bots
