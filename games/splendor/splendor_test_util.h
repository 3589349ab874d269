// Test helpers for Splendor: stacking states, move builders, and the game-specific
// invariants and leak checks the self-play tests run after every move.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "games/splendor/splendor.h"

namespace parlor::splendor::testing {

Tokens tokens(int white, int blue, int green, int red, int black, int gold = 0);

// Applies `move` for `seat`, expecting rejection `code` with a message, and no change at all.
void expect_rejected(SplendorGame& game, Seat seat, const Json& move, const std::string& code);

// A dealt state (seed 1 unless given) whose parts tests then rearrange.
State dealt(int seats, std::uint64_t seed = 1);

// Moves `card` (wherever it is: deck, table) into face-up slot `slot` of its level; the card
// that was there goes to the top of that deck. Conservation is preserved.
void put_face_up(State& state, int card, int slot);
// Moves `card` from a deck or the table (refilled) into `seat`'s reserve.
void put_reserved(State& state, int seat, int card, bool blind);
// Moves `card` out of the decks/table into `seat`'s bought cards (bonus and points added).
void put_bought(State& state, int seat, int card);
// Gives `seat` tokens from the bank (negative counts hand them back).
void give_tokens(State& state, int seat, const Tokens& tokens);
// Drops every card of a level's deck from the game (breaks card conservation on purpose:
// only for tests of an exhausted deck).
void empty_deck(State& state, int level);

// The first card in the data matching the predicate (level, bonus, points, cost).
int find_card(int level, const std::string& bonus, int points, const Gems& cost);

Json take(std::vector<std::string> gems);
Json reserve_card(int card);
Json reserve_blind(int level);
Json buy(int card);
Json buy_with_gold(int card, Json gold);
Json give_back(Json gems);
Json choose_noble(int noble);

// Which card ids (index 1..90; index 0 marks an integer that is no card id) a view,
// prompt or event mentions: the integers under "card" and "rows" keys.
using CardMask = std::array<bool, kCardCount + 1>;
CardMask card_ids(const Json& value);

// Token, card and noble conservation plus per-player consistency; "" when they hold.
std::string invariants(const SplendorGame& game);
// Deck cards and other seats' blind-reserved cards in no view or prompt of `viewer`
// (kSpectator included); "" when none. The one-argument form checks every viewer.
std::string leaks(const SplendorGame& game, Seat viewer);
// The same check on `view` and `prompt`, which must be game.view(viewer) and
// game.prompt(viewer) (already built by the caller).
std::string leaks(const SplendorGame& game, Seat viewer, const Json& view, const Json& prompt);
std::string leaks(const SplendorGame& game);
// Card identities an event list may not carry given the state after the move.
std::string event_leaks(const SplendorGame& game, const Json& events);

}  // namespace parlor::splendor::testing
