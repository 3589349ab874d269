// The store: where rooms, players and accepted moves outlive the process (docs/DESIGN.md,
// "Persistence and recovery"). A room is (kind, options, seats, seed, [accepted moves]);
// recovery replays the moves of every unfinished room.
//
// Writes are asynchronous and ordered: every write goes through one queue, in the order it
// was made, so a room is durable before its moves and a player before the rooms it sits in.
// `on_durable(WriteResult::kDurable)` is called once the write is committed to disk; only then
// may the room send the move's `ok` or any state push that reveals it. kFailed says the write
// failed (already logged): the caller must not claim the move happened. kFenced (cluster mode)
// says the room has a newer owner: this node must let the room go.
//
// No Asio here: the callbacks run on the thread that committed the write (the store's writer
// thread, or an event loop's thread that commits at the end of its passes, see
// EndOfPassCommits), and the caller takes them back to its own strand (a room runs a
// completion in place when its table is free, server/room/room.h). Both backends (SQLite,
// PostgreSQL) implement the same interface.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/histogram.h"
#include "server/ratings/ratings.h"

namespace parlor::server {

// The same type as identity.h's TokenHash (SHA-256 of the token); the token itself is never
// given to the store.
using TokenHash = std::array<unsigned char, 32>;
using UnixMillis = std::int64_t;

// Open, schema or integrity failures at start; the message names the file and the cause.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What became of one write.
enum class WriteResult {
  kDurable,  // committed to disk
  kFailed,   // not stored (logged): the database refused it or could not be reached
  // Not stored: the room's epoch in the store is newer than the write's, so another node
  // owns the room now (cluster mode's fencing, docs/ARCHITECTURE.md "Cluster mode").
  kFenced,
};

// Called once per write, on the thread that committed it, in the order the writes were made.
using DurableCallback = std::function<void(WriteResult)>;

// Marks the calling thread, while it lives, as an event loop's thread that calls
// Store::commit_pending() at the end of every pass of its loop (once the handlers that were
// ready have run). A store that commits there (commits_at_end_of_pass()) leaves the writes
// this thread queues for that call instead of waking its writer thread: a move is then
// committed and acknowledged on the thread that accepted it, with no hop to the writer and
// back (docs/ARCHITECTURE.md, "Persistence").
class EndOfPassCommits {
 public:
  EndOfPassCommits() { on_this_thread_ = true; }
  ~EndOfPassCommits() { on_this_thread_ = false; }
  EndOfPassCommits(const EndOfPassCommits&) = delete;
  EndOfPassCommits& operator=(const EndOfPassCommits&) = delete;
  static bool on_this_thread() { return on_this_thread_; }

 private:
  static inline thread_local bool on_this_thread_ = false;
};

struct PlayerRecord {
  std::string id;
  std::string name;
  TokenHash token_hash{};
  UnixMillis created_ms = 0;
  // When the player was last connected; player retention forgets players idle long enough.
  UnixMillis last_seen_ms = 0;
};

enum class StoredRoomStatus {
  kWaiting,
  kPlaying,
  kFinished,
  kAbandoned,  // removed before its game finished (nobody came back); never reloaded
};

struct SeatRecord {
  std::optional<std::string> player_id;  // nullopt: a bot added with add_bot
  std::string name;
  std::optional<std::string> bot;  // the strategy while a bot plays the seat

  friend bool operator==(const SeatRecord&, const SeatRecord&) = default;
};

struct RoomRecord {
  std::string id;
  std::string kind;
  int seats = 0;
  nlohmann::json game_options = nlohmann::json::object();  // normalized: defaults filled in
  nlohmann::json room_options = nlohmann::json::object();  // private, grace, turn_seconds, ...
  std::optional<std::string> creator_id;
  std::vector<std::optional<SeatRecord>> occupants;  // one per seat; nullopt: empty seat
  StoredRoomStatus status = StoredRoomStatus::kWaiting;
  UnixMillis created_ms = 0;
  std::optional<UnixMillis> finished_ms;  // of the current game, once it is over
  // The current game: 0 before the first start, then 1, 2, ... (rematches).
  int game_number = 0;
  std::uint64_t seed = 0;
  std::int64_t start_seq = 0;  // the room's seq when this game began
  UnixMillis game_started_ms = 0;
  // Cluster mode's fencing: the owner's epoch and node id. A store that holds the room with a
  // newer epoch (or the same epoch and another owner) refuses the write with kFenced. Single
  // servers write epoch 0 and no owner.
  std::int64_t epoch = 0;
  std::string owner;
};

struct MoveRecord {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
  std::string room_id;
  int game_number = 0;
  std::int64_t seq = 0;  // the room's seq once this move is accepted (the one `ok` carries)
  int seat = 0;
  nlohmann::json move;
  UnixMillis at_ms = 0;
  // Game::state_hash() after this move, kept every few moves: recovery checks that replaying
  // the log under the current engine reaches the same states.
  std::optional<std::uint64_t> state_hash;
  // The epoch of the owner that accepted the move (see RoomRecord::epoch).
  std::int64_t epoch = 0;
  // `move` as json_text::value writes it, when the room has that text already (the frame
  // that carried a player's move: protocol::Move::move_text); empty: the store writes it.
  std::string move_text = {};
};

// An unfinished room as recovery needs it: the record and its current game's moves by seq.
struct LoadedRoom {
  RoomRecord room;
  std::vector<MoveRecord> moves;
};

struct LoadedState {
  std::vector<PlayerRecord> players;
  std::vector<LoadedRoom> rooms;  // status waiting or playing
};

// One game of a room, for replays.
struct GameRecord {
  int game_number = 0;
  std::uint64_t seed = 0;
  std::int64_t start_seq = 0;
  UnixMillis started_ms = 0;
  std::optional<UnixMillis> finished_ms;
  std::vector<MoveRecord> moves;  // by seq
};

struct RoomHistory {
  RoomRecord room;
  std::vector<GameRecord> games;  // by game_number
};

// ---- rated games (docs/ARCHITECTURE.md, "Ratings") ----------------------------------------

// One seat of a rated game. A bot the server seated is rated as "bot:<strategy>".
struct RatedSeat {
  std::string player_id;
  std::string name;
  int side = 0;  // index into RatedGameRecord::side_ranks
  bool abandoned = false;
};

// The end of a rated game. The store rates it once — a second record of the same room and game
// (a recovery replaying the game's end) changes nothing — and keeps the result and every seat's
// rating before and after.
struct RatedGameRecord {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
  std::string room_id;
  int game_number = 0;
  std::string kind;
  UnixMillis finished_ms = 0;
  std::vector<RatedSeat> seats;  // by seat
  std::vector<int> side_ranks;   // per side: its place, 0 best (equal places tie)
  nlohmann::json result;         // the game's result, as game_over carried it
  // Fencing, as RoomRecord's: a room owned by a newer epoch refuses the record (kFenced).
  std::int64_t epoch = 0;
  std::string owner;
};

// The sides of a record, for ratings::rate_game.
inline std::vector<ratings::Side> rated_sides(const RatedGameRecord& game) {
  std::vector<ratings::Side> sides(game.side_ranks.size());
  for (std::size_t k = 0; k < sides.size(); ++k) sides[k].rank = game.side_ranks[k];
  for (std::size_t seat = 0; seat < game.seats.size(); ++seat) {
    const int side = game.seats[seat].side;
    if (side < 0 || static_cast<std::size_t>(side) >= sides.size()) {
      throw std::invalid_argument("seat " + std::to_string(seat) + " is on no side");
    }
    sides[static_cast<std::size_t>(side)].seats.push_back(static_cast<int>(seat));
  }
  return sides;
}

// Each identity's new rating after a game, with the name it played under: its seat's rating,
// or, for an identity that held several seats (bots of one strategy that the server seated
// together), the mean of its seats' ratings.
inline std::map<std::string, std::pair<std::string, ratings::Rating>> merged_by_identity(
    const RatedGameRecord& game, const std::vector<ratings::Rating>& after) {
  std::map<std::string, std::pair<std::string, ratings::Rating>> out;
  std::map<std::string, int> count;
  for (std::size_t seat = 0; seat < game.seats.size() && seat < after.size(); ++seat) {
    const RatedSeat& who = game.seats[seat];
    auto [it, added] = out.try_emplace(who.player_id, who.name, ratings::Rating{0, 0, 0});
    ratings::Rating& sum = it->second.second;
    sum.rating += after[seat].rating;
    sum.deviation += after[seat].deviation;
    sum.volatility += after[seat].volatility;
    ++count[who.player_id];
  }
  for (auto& [id, entry] : out) {
    const double n = count[id];
    entry.second = {entry.second.rating / n, entry.second.deviation / n,
                    entry.second.volatility / n};
  }
  return out;
}

// A player's rating in one kind of game.
struct RatingRow {
  std::string player_id;
  std::string name;
  std::string kind;
  ratings::Rating rating;
  int games = 0;
  UnixMillis updated_ms = 0;
};

// One rated game as one of its players saw it.
struct RatedGameEntry {
  std::string room_id;
  int game_number = 0;
  std::string kind;
  UnixMillis finished_ms = 0;
  std::string system;  // "glicko2" or "weng-lin"
  int seat = 0;
  int rank = 0;   // the player's side's place, 0 best
  int sides = 0;  // how many sides played
  bool abandoned = false;
  ratings::Rating before;
  ratings::Rating after;
};

struct PlayerRatings {
  std::string id;
  std::string name;
  std::vector<RatingRow> ratings;     // one per kind played, by kind
  std::vector<RatedGameEntry> games;  // the latest first
};

// Writes per committed batch, and seconds per batch from BEGIN to COMMIT returned (the
// fsync included): the buckets of StoreStats' histograms.
inline constexpr std::array<double, 10> kStoreBatchSizeBounds = {1,  2,  4,   8,   16,
                                                                 32, 64, 128, 256, 512};
inline constexpr std::array<double, 12> kStoreCommitBoundsSeconds = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};

// What the writer has done, for metrics.
struct StoreStats {
  std::uint64_t batches = 0;         // transactions committed (one fsync each)
  std::uint64_t records = 0;         // writes committed
  std::uint64_t failed_records = 0;  // writes reported kFailed or kFenced
  std::uint64_t failed_batches = 0;  // transactions that did not commit
  std::uint64_t largest_batch = 0;
  std::uint64_t queued = 0;  // writes waiting for the writer now
  HistogramCounts<kStoreBatchSizeBounds.size()> batch_sizes;
  HistogramCounts<kStoreCommitBoundsSeconds.size()> commit_seconds;
};

// A writer's batch in `stats`: its size and commit time when it committed with writes in it
// (a batch of flush markers alone costs nothing worth measuring), a failure when it did not.
inline void count_batch(StoreStats& stats, bool committed, std::uint64_t records, double seconds) {
  if (!committed) {
    ++stats.failed_batches;
  } else if (records > 0) {
    stats.batch_sizes.observe(kStoreBatchSizeBounds, static_cast<double>(records));
    stats.commit_seconds.observe(kStoreCommitBoundsSeconds, seconds);
  }
}

class Store {
 public:
  virtual ~Store() = default;

  // Inserts or replaces the player (name, token hash and last-seen time; a last-seen time
  // never goes back).
  virtual void save_player(PlayerRecord player, DurableCallback on_durable) = 0;
  // Inserts or replaces the whole room record: at creation, and on every change of status,
  // seats, seed or game number (start, rematch, finish, a bot taking a seat over).
  virtual void save_room(RoomRecord room, DurableCallback on_durable) = 0;
  // Appends an accepted move. Once one move of a game has failed, later moves of that game
  // fail too, so a log never has a gap.
  virtual void append_move(MoveRecord move, DurableCallback on_durable) = 0;

  // Rates a finished rated game and keeps its result, once per room and game number (see
  // RatedGameRecord). kDurable also when the game was already rated.
  virtual void record_rated_game(RatedGameRecord game, DurableCallback on_durable) = 0;

  // Deletes the rooms that ended (finished or abandoned) before `before_ms`, with their seats,
  // games and moves: how long replays are kept. Queued behind the writes before it.
  virtual void prune_ended_rooms(UnixMillis before_ms) = 0;

  // Deletes the players last seen before `before_ms` who leave nothing behind: no rating, no
  // seat in a room the store still keeps, no room they created (docs/OPERATIONS.md, "Player
  // retention"). Queued behind the writes before it.
  virtual void prune_idle_players(UnixMillis before_ms) = 0;

  // Blocks until every write queued before the call has been committed (or has failed).
  // Never call it from an on_durable callback.
  virtual void flush() = 0;

  // Whether commit_pending() commits (see EndOfPassCommits); false: it does nothing and the
  // writer thread commits everything.
  virtual bool commits_at_end_of_pass() const { return false; }
  // Called by an event loop's thread (EndOfPassCommits) at the end of each pass: commits the
  // writes queued so far, its own and other threads', in one transaction and calls their
  // callbacks on this thread. Returns at once when another thread is committing: that one
  // takes what is queued before it lets go.
  virtual void commit_pending() {}

  // Every player and every unfinished room with its current game's moves. Sees only
  // committed writes: call flush() first for your own queued ones. Blocking disk I/O: call
  // it at start, or off any strand.
  virtual LoadedState load() = 0;
  // A room (finished or not) with every game's moves, or nullopt; blocking like load().
  virtual std::optional<RoomHistory> load_room(const std::string& room_id) = 0;

  // The best `limit` ratings of a kind by conservative rating (ratings::conservative), then by
  // player id; blocking like load().
  virtual std::vector<RatingRow> load_leaderboard(const std::string& kind, int limit) = 0;
  // A player's (or a bot's) ratings and latest `games` rated games; nullopt when it has played
  // no rated game. Blocking like load().
  virtual std::optional<PlayerRatings> load_player_ratings(const std::string& player_id,
                                                           int games) = 0;

  virtual StoreStats stats() const = 0;
};

}  // namespace parlor::server
