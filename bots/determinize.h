// Determinization for the `ismcts` strategy: per game, a sampler that builds one complete game
// (a "world") consistent with everything a seat has seen, and how a search reads the outcome of
// a world played on to the end of the hand in progress.
//
// A sampler takes only what the seat was sent — its view and the public events of the game so
// far — and never the true state: its signature has no way to reach a Game. It deals the cards
// the seat cannot see at random among the hands that may hold them (counts, cards already
// played, suits a seat has shown it lacks), then replays the hand's public moves through the
// engine's own apply(), so the world obeys the real rules. One file per game:
// determinize_<kind>.cpp.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "games/core/game.h"
#include "games/core/rng.h"

namespace parlor::bots {

// The note an ismcts strategy adds to its own event list after each of its moves,
// {"type":"own_move","move":MOVE}: a seat knows what it played, even where the public event
// hides it (Bid Whist's discard).
inline constexpr std::string_view kOwnMoveNote = "own_move";

// One sampled world in which `view`'s seat is to act, or null when none could be built (the
// events do not cover the hand, e.g. a bot that took over a seat mid-hand).
using WorldSampler = std::unique_ptr<Game> (*)(const Json& view, std::span<const Json> events,
                                               Rng& rng);

struct IsmctsGame {
  WorldSampler sample = nullptr;
  // True once `world` has left the hand `root` was in (or the game is over): playouts stop there.
  bool (*hand_over)(const Game& root, const Game& world) = nullptr;
  // What the hand played out from `root` to `world` was worth to `seat`, in [0, 1].
  double (*reward)(const Game& root, const Game& world, Seat seat) = nullptr;
  // True when the search should decide this prompt; false leaves it to the greedy heuristic
  // (bids, whose worth random playouts judge badly).
  bool (*searches)(const Json& view) = nullptr;
  // The default budget: iterations a decision that keep the mean decision under 50 ms on one
  // core (docs/BENCHMARKS.md, "Search bots").
  int iterations = 400;
  // True: playouts move every seat by the greedy heuristic instead of at random (a game whose
  // random play says little about a move: Splendor's).
  bool greedy_playouts = false;
  // True: every sampled world plays out each of the seat's moves, with the same random source
  // for each, instead of one move picked by UCB1. The moves are then compared on the same
  // cards (common random numbers), which matters where the cards dealt swing a hand's outcome
  // far more than the choice of card does (Spades, Bid Whist), and the world is sampled and its
  // hand replayed once for all of them. `iterations` counts playouts either way.
  bool every_move_per_world = false;
  // Nonzero: the playout length, in moves, that `iterations` is priced at. A decision stops once
  // its playouts have made iterations × this many moves, so one early in a hand, whose playouts
  // are long, runs fewer of them and one near its end (short playouts) all. A count of moves,
  // not a clock, so the move chosen still depends only on the seed, the events and the budget.
  int playout_moves = 0;
  // Null: the search weighs the prompt's legal moves. Otherwise the moves to weigh for this
  // prompt, a JSON array of legal moves: a few where the prompt lists none (Bid Whist's
  // discard, any 6 of 18 cards) or a shortlist where most of a long list is plainly no better
  // than one of it (Bid Whist's bids: a dearer bid of a type only risks more). An empty array
  // leaves the decision to the greedy heuristic.
  Json (*candidates)(const Json& view, const Json& prompt) = nullptr;
  // Null: `greedy_playouts` holds for every decision. Otherwise true when this decision's
  // playouts move by the greedy heuristic (Bid Whist's bid, declaration and discard, whose
  // worth shows only in a sensible auction and card play, never in random ones).
  bool (*greedy_playouts_for)(const Json& view) = nullptr;
  // What one move of a greedy playout counts for against the `playout_moves` budget: the
  // heuristic reads a view built for each move, so a greedy move costs several random ones.
  int greedy_move_cost = 1;
};

// The determinization of `kind`, or null when the kind has none.
const IsmctsGame* find_ismcts_game(std::string_view kind);

// `given` (the rule options a view shows) with every other option at its default, as an
// engine's constructor needs them; the defaults alone when `given` does not validate.
Json world_options(std::string_view kind, const Json& given);

std::unique_ptr<Game> sample_spades_world(const Json& view, std::span<const Json> events, Rng& rng);
std::unique_ptr<Game> sample_agram_world(const Json& view, std::span<const Json> events, Rng& rng);
std::unique_ptr<Game> sample_bigtwo_world(const Json& view, std::span<const Json> events, Rng& rng);
extern const IsmctsGame kIsmctsSpades;
extern const IsmctsGame kIsmctsAgram;
std::unique_ptr<Game> sample_bidwhist_world(const Json& view, std::span<const Json> events,
                                            Rng& rng);
extern const IsmctsGame kIsmctsBigTwo;
std::unique_ptr<Game> sample_splendor_world(const Json& view, std::span<const Json> events,
                                            Rng& rng);
extern const IsmctsGame kIsmctsBidWhist;
extern const IsmctsGame kIsmctsSplendor;

}  // namespace parlor::bots
