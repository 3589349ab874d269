// Splendor's state and the pure rule helpers the engine is built from: the deal, the
// gem-taking combinations, payments (with gold as a wild) and token-return choices.
// Kept apart from the Game class so they can be tested and reused (bots) directly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "games/splendor/catalogue.h"

namespace parlor::splendor {

// A colour, token kind or slot number (an int in the rules) as an index into its array.
inline std::size_t at(int index) { return static_cast<std::size_t>(index); }

inline constexpr int kSlotsPerLevel = 4;
inline constexpr int kMaxReserved = 3;
inline constexpr int kMaxTokens = 10;
inline constexpr int kWinningPoints = 15;
inline constexpr int kGoldTokens = 5;
inline constexpr int kMinStackForTwo = 4;

// kPlay: the seat to act chooses one of the four actions. kReturn / kNoble: the same seat's
// end-of-turn follow-ups (return tokens down to ten; choose among several nobles).
enum class Phase { kPlay, kReturn, kNoble, kFinished };

struct ReservedCard {
  int card = 0;
  bool blind = false;  // drawn from a deck top: only its owner knows it
  bool operator==(const ReservedCard&) const = default;
};

struct PlayerState {
  Tokens tokens{};
  Gems bonuses{};  // one per bought card of that colour
  int points = 0;  // bought cards' points plus nobles'
  std::vector<int> bought;
  std::vector<ReservedCard> reserved;
  std::vector<int> nobles;

  int token_count() const;
};

struct State {
  int seats = 2;
  Tokens bank{};
  std::array<std::vector<int>, kLevels> decks;  // back() is the top card
  // Face-up cards per level; 0 marks a slot left empty because its deck ran out.
  std::array<std::array<int, kSlotsPerLevel>, kLevels> rows{};
  std::vector<int> nobles;  // on the table
  std::vector<PlayerState> players;
  int current = 0;  // the seat whose turn it is
  Phase phase = Phase::kPlay;
  int turns = 0;             // completed turns
  int passes = 0;            // consecutive passes (see README: only when nothing else is legal)
  bool final_round = false;  // someone reached 15: the round is being finished
  bool stalemate = false;    // ended because nobody could move

  const PlayerState& player(int seat) const { return players[static_cast<std::size_t>(seat)]; }
  PlayerState& player(int seat) { return players[static_cast<std::size_t>(seat)]; }
};

// The bank of a game for `seats` players: 4 / 5 / 7 gems per colour and 5 gold.
Tokens initial_bank(int seats);

// The deal: the three decks shuffled from the seed, four face up per level, seats + 1 nobles.
State initial_state(int seats, std::uint64_t seed);

// ---- taking gems ----

// Every legal take for `bank`, each as colour indices: three different colours (or all
// the colours left when fewer than three remain), then two of a colour from stacks of 4+.
std::vector<std::vector<int>> take_options(const Tokens& bank);

// ---- payments ----

// What buying `card` costs a player: per colour, the gems still needed after bonuses, the
// part of it the player's gems cover by default, and the rest, which gold must cover.
struct Price {
  Gems need{};
  Gems shortfall{};  // need the player's gems cannot cover: gold must
  int gold_needed = 0;
  bool affordable = false;
};
Price price_for(const PlayerState& player, const CardDef& card);

// Tokens paid when gold stands in for `gold_used[c]` of colour c (gems pay the rest).
Tokens payment_tokens(const Price& price, const Gems& gold_used);

// Why `gold_used` is not a valid non-default gold choice for `price` with `gold_held`, or
// nullopt when it is. Valid: shortfall <= gold_used <= need per colour, total within the
// gold held, and more gold than the default payment spends.
std::optional<std::string> gold_choice_error(const Price& price, const Gems& gold_used,
                                             int gold_held);

// Every valid non-default gold choice (see gold_choice_error), in a fixed order.
std::vector<Gems> extra_gold_choices(const Price& price, int gold_held);

// ---- returning tokens ----

// Every multiset of `count` tokens a player holding `held` can return.
std::vector<Tokens> return_options(const Tokens& held, int count);

// ---- nobles ----

bool qualifies(const PlayerState& player, const NobleDef& noble);

}  // namespace parlor::splendor
