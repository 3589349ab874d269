// The public record of the hand in progress of a trick-taking game, read from the events a seat
// has been shown: the moves to replay from the deal (bids and plays, never a hidden move), the
// cards each seat has played, and the suits each seat has shown it lacks by not following.
// Samplers rebuild a world by dealing hands and replaying these moves through the engine.
#pragma once

#include <span>
#include <vector>

#include "games/core/card_set.h"
#include "games/core/game.h"
#include "games/tricks/tricks.h"

namespace parlor::bots {

struct ReplayStep {
  Seat seat = 0;
  Json move;
};

struct TrickHandHistory {
  std::vector<ReplayStep> steps;  // since the hand began, in order
  std::vector<CardSet> played;    // per seat, this hand
  std::vector<unsigned> voids;    // per seat: bit s set when the seat failed to follow suit s
};

// The events after the last {"type":"deal"} (the whole list before the first one): the hand in
// progress.
std::span<const Json> current_hand(std::span<const Json> events);

// Reads the events after the last {"type":"deal"} (the whole list before the first one).
// `translate` turns a non-play event into the move that caused it, or null when the event
// answers no move; a {"type":"play","seat","card"} event becomes {"action":"play","card"}.
// A card's suit for following is its `rules` effective suit (a card's own suit when null); the
// suit led is that of the first card that has one, and a later card of another suit (or of
// none) shows its seat lacks the suit led.
TrickHandHistory read_trick_hand(std::span<const Json> events, int seats,
                                 Json (*translate)(const Json& event),
                                 const tricks::TrickRules* rules = nullptr);

// Replays `steps` on `game`; false at the first move the engine rejects.
bool replay_steps(Game& game, std::span<const ReplayStep> steps);

}  // namespace parlor::bots
