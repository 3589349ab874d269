// Card <-> JSON helpers shared by every engine, with move-parsing errors that
// name the field and the card.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "games/core/card.h"
#include "games/core/card_set.h"
#include "games/core/game.h"

namespace parlor {

Json card_to_json(Card card);
// Cards in the given order.
Json cards_to_json(const std::vector<Card>& cards);
// Cards in index order (clubs, diamonds, hearts, spades; 2..A; then jokers).
Json cards_to_json(CardSet cards);

// Reads move[field] as one card. On failure returns nullopt with a message in `error`.
std::optional<Card> card_field(const Json& move, std::string_view field, std::string& error);
// Reads move[field] as an array of distinct cards (at most `max_count`).
std::optional<CardSet> cards_field(const Json& move, std::string_view field, int max_count,
                                   std::string& error);

// The "action" string of a move object, or nullopt with an error message.
std::optional<std::string> action_of(const Json& move, std::string& error);

}  // namespace parlor
