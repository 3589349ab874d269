// Quick play's queues: players waiting for a table of one game, seat count and options.
// Players who want the same table wait in one queue, first come first seated; a queue with a
// full table's worth of players makes a table, and one whose oldest player has waited
// `bots_after` makes a table of everyone waiting with bots in the empty seats.
//
// Rated queues also look at ratings, so that a rated game is worth playing for everyone at
// the table: a table forms around a waiting player from the players whose ratings lie within
// its rating band (RatingBand), oldest first; the band widens the longer that player waits.
// After `bots_after` a rated player is seated with whoever is within its band then, and bots.
// A rated partnership table of players only is seated so that its teams' summed ratings are
// as even as can be.
//
// Pure: no sockets, timers or rooms. Time comes in as an argument, and what to open comes
// out as values (server/quick_play.h carries them out), as with the room table.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "games/core/game.h"
#include "games/core/game_info.h"
#include "server/identity.h"
#include "server/ratings/ratings.h"

namespace parlor::server {

class Matchmaker {
 public:
  using Clock = std::chrono::steady_clock;

  // The table a player asks for: game options already normalized (defaults filled in), so
  // two wishes for the same table compare equal.
  struct Wish {
    const GameInfo* game = nullptr;
    int seats = 0;
    Json options = Json::object();
    bool rated = false;  // rated and unrated players never share a table
    // Partnerships: seat s plays for team s % teams (Spades and Bid Whist: 2). 0: every seat
    // plays for itself. A property of the game, so it never splits a queue.
    int teams = 0;
  };
  // A table to open: `players` in seat order, bots in the seats after them.
  struct Match {
    Wish wish;
    std::vector<std::shared_ptr<Player>> players;
    int bots = 0;
  };
  // Where a waiting player stands in its queue.
  struct Standing {
    std::shared_ptr<Player> player;
    Wish wish;
    int position = 0;  // 1: waited longest (in an unrated queue, next to be seated)
    int waiting = 0;   // players in the queue
    // Until a table opens for this player at the latest (bots fill it then); zero when bots
    // never fill seats.
    std::chrono::milliseconds estimate{0};
  };
  // How far apart in rating the players of a rated table may be: within the band of the
  // player the table forms around, `base` rating points either side of its rating at first,
  // `per_second` more for every second it has waited, never more than `max`.
  struct RatingBand {
    double base = 100;
    double per_second = 10;
    double max = 400;
    double after(std::chrono::milliseconds waited) const;
  };

  // `bots_after`: zero never fills seats with bots.
  Matchmaker(std::chrono::milliseconds bots_after, RatingBand band)
      : bots_after_(bots_after), band_(band) {}
  explicit Matchmaker(std::chrono::milliseconds bots_after)
      : Matchmaker(bots_after, RatingBand{}) {}

  // False when the player already waits (in any queue). `rating`: the player's rating of
  // the wish's game (its mean, ratings::Rating::rating); only rated queues read it.
  bool enqueue(std::shared_ptr<Player> player, Wish wish, Clock::time_point now,
               double rating = ratings::kInitialRating);
  // Takes the player out of its queue; false when it was not waiting.
  bool cancel(const Player& player);
  std::optional<Wish> wish_of(const Player& player) const;

  // The tables to open now; their players leave the queues.
  std::vector<Match> take_matches(Clock::time_point now);
  // Every waiting player's standing.
  std::vector<Standing> standings(Clock::time_point now) const;

  // The queue a wish waits in: wishes with equal keys want the same table (a cluster keeps
  // one queue per key in Redis, server/cluster/cluster_quick_play.h).
  static std::string key_of(const Wish& wish);

 private:
  struct Ticket {
    std::shared_ptr<Player> player;
    Clock::time_point since;
    double rating = ratings::kInitialRating;
  };
  struct Queue {
    Wish wish;
    std::vector<Ticket> tickets;  // oldest first
  };
  // A rated queue's tables now (see the top of this file); their tickets leave the queue.
  void take_rated(Queue& queue, Clock::time_point now, std::vector<Match>& matches);

  std::chrono::milliseconds bots_after_;
  RatingBand band_;
  std::map<std::string, Queue> queues_;
  std::map<std::string, std::string> queue_of_;  // player id -> queue key
};

}  // namespace parlor::server
