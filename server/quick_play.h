// Quick play over the protocol: `quick_play` puts a player in the matchmaker's queue
// (matchmaker.h), and on every tick (each half second, on the lobby feed's timer in
// ServerState) the tables it makes are opened as ordinary rooms
// (public, default room options), the players seated in the order the matchmaker gives
// (the queue's, or a rated partnership table's balanced one), bots in the seats left, and
// the game started. Waiting players are told where they stand when that changes.
// A rated wish carries the player's rating of the game, read from the store before it is
// queued (stored_rating), for the matchmaker's rating bands.
//
// This queue is one node's. A cluster queues in Redis instead and one node at a time forms
// its tables (server/cluster/cluster_quick_play.h), with this class's checks, pushes and
// open_table(). Thread-safe: requests come from connections' strands, ticks from a timer.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "protocol/commands.h"
#include "protocol/error_code.h"
#include "server/identity.h"
#include "server/lobby.h"
#include "server/matchmaker.h"
#include "server/store/store.h"

namespace parlor::server {

class QuickPlay {
 public:
  // The strategy of the bots that fill quick-play tables.
  static constexpr const char* kFillerStrategy = "greedy";

  QuickPlay(Lobby& lobby, std::chrono::milliseconds bots_after, Matchmaker::RatingBand band = {});

  // The player's rating of `kind` as `store` holds it, or a new player's when it has none.
  // Blocking disk I/O: call it through ServerState::run_blocking(). Throws StoreError.
  static double stored_rating(Store& store, const std::string& player_id, const std::string& kind);

  using Refusal = Lobby::Refusal;
  // Queues `player` and answers `re` with its standing, or refuses (nothing changed then).
  // `rating`: the player's rating of the game (stored_rating), for a rated request.
  std::optional<Refusal> enqueue(const std::shared_ptr<Player>& player,
                                 const protocol::QuickPlay& request, const Json& re,
                                 double rating = ratings::kInitialRating);
  // Takes the player out of the queue; false when it was not waiting.
  bool cancel(const Player& player);
  // Opens the tables the queues make now and tells waiting players where they stand.
  void tick();

  // Whether `player` may queue for `request` (nothing changed either way): its wish when so.
  std::optional<Refusal> check(const std::shared_ptr<Player>& player,
                               const protocol::QuickPlay& request, Matchmaker::Wish& wish) const;
  // Opens `match`'s table here: players seated in its order, bots after them, started.
  // Returns the room, or nullptr (and why in `refusal`).
  std::shared_ptr<Room> open_table(const Matchmaker::Match& match, Refusal& refusal);
  // The pushes of quick play: where a waiting player stands, its seat at an opened table,
  // and a table that could not be opened.
  static Json standing_message(const Matchmaker::Standing& standing);
  static Json seated_message(const Matchmaker::Match& match, const std::string& room,
                             std::size_t seat);
  static Json failed_message(const Refusal& refusal);
  // The partnerships of a game as its rules seat them (Matchmaker::Wish::teams).
  static int teams_of(const GameInfo& game);

 private:
  void open(const Matchmaker::Match& match);

  Lobby& lobby_;
  std::mutex mutex_;
  Matchmaker matchmaker_;
  // What each waiting player was last told (position, waiting), to push only changes.
  std::map<std::string, std::pair<int, int>> told_;
};

}  // namespace parlor::server
