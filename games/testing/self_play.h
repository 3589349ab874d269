// A reusable self-play checker for any Game: plays seeded games of random legal
// moves and, after every move, checks the properties every engine must have:
//
//  - to_act is non-empty until the game is finished, and only seats in to_act get a prompt;
//  - every move in legal_moves is accepted (on a clone), and mutations of legal moves are
//    accepted exactly when they are legal; a rejected move leaves the state hash unchanged;
//  - a seat not in to_act is refused with not_your_turn, state unchanged;
//  - no view contains a card hidden from its viewer (other hands, deck, kitty), and the
//    spectator view contains none; public events carry no hidden card;
//  - replaying (options, seats, seed, moves) with games/core/replay.h reaches the live state
//    hash after every move; clones hash equal;
//  - game-specific invariants (card conservation, ...) through a hook.
//
// Every failure message carries the seed, so `--gtest_filter` plus the seed replays it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "games/core/card_set.h"
#include "games/core/game_info.h"
#include "games/core/rng.h"

namespace parlor::testing {

struct SelfPlayHooks {
  // Cards `viewer` may not see in the current state (kSpectator: cards nobody outside may
  // see). Computed from Game::full_state(). Required.
  std::function<CardSet(const Game& game, Seat viewer)> hidden_cards;
  // Game-specific invariants; return an empty string when they hold, else what broke.
  std::function<std::string(const Game& game)> invariants;
  // Optional: game-specific checks of what a viewer is shown, given the view and prompt the
  // checker has just built and checked for that viewer (every viewer incl. kSpectator, after
  // every move and once the game is over), so a hook need not build them again. Returns ""
  // when they hold.
  std::function<std::string(const Game& game, Seat viewer, const Json& view, const Json& prompt)>
      view_invariants;
};

struct SelfPlayStats {
  int games = 0;
  std::int64_t moves = 0;
  std::int64_t mutations_checked = 0;
};

// Plays `games` games (seeds base_seed, base_seed+1, ...) with `seats` seats. Returns an
// empty string on success, otherwise a description of the first violation with its seed.
// `check_every_legal` applies every legal move on a clone at each step (slower).
std::string run_self_play(const GameInfo& info, const Json& options, int seats,
                          std::uint64_t base_seed, int games, const SelfPlayHooks& hooks,
                          SelfPlayStats* stats = nullptr, bool check_every_legal = false);

// The seed base for a randomized test: PARLOR_SEED from the environment when set, else
// `fallback`. The test prints it so any failure can be replayed.
std::uint64_t test_seed(std::uint64_t fallback);
// Number of games: PARLOR_SELF_PLAY_GAMES when set, else `fallback` capped at
// PARLOR_SELF_PLAY_MAX_GAMES when that is set (make test's release suite).
int self_play_games(int fallback);

// A move built from a prompt's "choose" form (a move whose legal set is not enumerated, such
// as a discard): `count` distinct random items of `from`.
Json move_from_choose(const Json& choose, Rng& rng);

// Every card string found anywhere in a JSON value (string values that parse as cards).
CardSet cards_mentioned(const Json& value);

// Card conservation: the named places hold every card of `deck` exactly once. Returns ""
// when they do, else which place repeats a card or which cards are lost.
std::string check_card_places(const std::vector<std::pair<std::string, CardSet>>& places,
                              CardSet deck);

}  // namespace parlor::testing
