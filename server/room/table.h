// A room's table: the seats, the spectators, the game, `seq`, bot stand-ins and grace
// periods, the turn clock and the write-ahead gate, as one synchronous state machine.
//
// It knows no socket, strand, timer or disk. Every call takes the time as an argument and
// puts what must happen into an Outbox (frames to deliver, records to store, what the lobby
// must learn); the Room actor (room.h) carries that out and arms one timer for
// next_deadline(). So a table can be driven by a test with a hand-moved clock, rebuilt from a
// stored log, or handed to another process, and its behaviour is the same.
//
// Every accepted move, whoever makes it (a player, a bot, the turn clock), goes through
// accept_move(): the engine applies it, seq moves on, the move goes to the store, the mover
// gets its ok, and every member gets the state push, all behind the write-ahead gate.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bots/strategy.h"
#include "games/core/game_info.h"
#include "games/core/rng.h"
#include "games/external/external_game.h"
#include "protocol/encode.h"
#include "protocol/error_code.h"
#include "server/engine/engine_reply.h"
#include "server/fifo.h"
#include "server/room/outbox.h"
#include "server/room/room_options.h"

namespace parlor::server {

class Metrics;
struct GameMetrics;
using protocol::RoomStatus;

// The time a table acts at: the monotonic clock for its deadlines, and the wall clock for
// what it stores and tells clients (turn deadlines in server time).
struct TableTime {
  Clock::time_point steady;
  UnixMillis unix_ms = 0;
  static TableTime now();
};

// Who asked: the player, the connection to answer on, and the request id to echo as `re`.
struct Caller {
  std::shared_ptr<Player> player;
  std::shared_ptr<Connection> connection;
  Json re;
  Clock::time_point received = Clock::now();
  // The server itself (quick play) seats bots: allowed in a rated room, where a player's
  // add_bot is refused.
  bool server_seats_bots = false;
};

struct TableSetup {
  std::string id;
  const GameInfo* game = nullptr;
  int seats = 0;
  Json game_options;  // normalized: every default filled in
  RoomOptions options;
  std::shared_ptr<Player> creator;
  // A store keeps the room: its records and moves are written, and frames wait for them.
  bool persistent = false;
  // Draws each new game's seed (unless options.seed fixes it). The server's draws from the
  // system's random source: a seed must never be predictable from anything a player sees.
  std::function<std::uint64_t()> draw_seed;
  // Cluster mode: this node's id and its epoch of ownership, carried by every record the
  // table writes (the store refuses them once another node owns the room). 0 and "" on a
  // single server.
  std::int64_t epoch = 0;
  std::string owner;
};

// The server-wide times a table follows (ServerConfig's, or a test's).
struct TableTimings {
  std::chrono::milliseconds bot_delay{400};
  std::chrono::milliseconds empty_room_timeout{std::chrono::seconds(600)};
  std::chrono::milliseconds finished_room_retention{std::chrono::hours(1)};
  // Spectators coming and going change only the room's spectator count: the members' `room`
  // push and the lobby's summary for it wait this long, so a crowd arriving at once is one
  // push to each member rather than one per arrival (N arrivals used to cost N² frames).
  std::chrono::milliseconds spectator_push_delay{500};
};

// One per room: its fields stay grouped by what they are for, which is worth more than the 32
// bytes the static analyzer's padding check would save by reordering them.
// NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding)
class Table {
 public:
  Table(TableSetup setup, TableTimings timings, Metrics& metrics, std::uint64_t bot_seed,
        TableTime created);

  const std::string& id() const { return setup_.id; }
  bool is_private() const { return setup_.options.is_private; }
  // kPaused while the room's rules engine (an external game) is not answering, or while a
  // room of a cluster waits for its store (stall()).
  RoomStatus status() const {
    return engine_paused_ || store_stalled_ ? RoomStatus::kPaused : status_;
  }
  std::int64_t seq() const { return seq_; }
  const Game* game() const { return game_.get(); }
  const WriteAheadGate& gate() const { return gate_; }
  // This game kind's counters (they outlive the table).
  GameMetrics& game_metrics() const { return game_metrics_; }

  // ---- requests (table.cpp) ----
  // Seats the caller (first free seat when none is given). `creating`: the reply is
  // room_created rather than joined.
  void join(const Caller& caller, std::optional<int> seat, bool creating, TableTime now,
            Outbox& out);
  void watch(const Caller& caller, TableTime now, Outbox& out);
  void leave(const Caller& caller, TableTime now, Outbox& out);
  void add_bot(const Caller& caller, int seat, const std::string& strategy, TableTime now,
               Outbox& out);
  void start(const Caller& caller, TableTime now, Outbox& out);
  void chat(const Caller& caller, const std::string& text, TableTime now, Outbox& out);
  // `move_text`: the move's compact JSON text when the frame carried it so (protocol::Move),
  // recorded as it is; empty: the store writes the move itself.
  void move(const Caller& caller, Json move, std::optional<std::int64_t> seq, TableTime now,
            Outbox& out, std::string&& move_text = {});
  void legal_moves(const Caller& caller, Outbox& out);

  // ---- host controls and moderation (table_moderation.cpp) ----
  // The creator empties `seat` of a waiting room: a bot goes, a player (connected or not) is
  // told (seat_removed) and is no longer a member.
  void remove_seat(const Caller& caller, int seat, TableTime now, Outbox& out);
  // The creator locks (or unlocks) a waiting room: join_room seats nobody new while locked.
  void set_locked(const Caller& caller, bool locked, TableTime now, Outbox& out);
  // An administrator closed the room: every member is told (room_closed, with `reason`),
  // the store keeps it as abandoned, and out.remove is set.
  void close(std::string_view reason, Outbox& out);

  // ---- presence and time (table_time.cpp) ----
  // A member's connection went away or came back. `resumed`: they said hello again with
  // their token, and get the room and the whole state pushed.
  void presence_changed(const std::shared_ptr<Player>& player, bool connected, bool resumed,
                        TableTime now, Outbox& out);
  // The player took a new name: its seat shows it (the room is pushed and stored again when
  // it sits here; a spectator's name is never shown).
  void renamed(const Player& player, Outbox& out);
  // When advance() next has something to do: a bot's move, a turn clock, a grace period
  // running out or a spectator count to push. nullopt: nothing until a request comes.
  std::optional<Clock::time_point> next_deadline() const;
  // Does whatever is due at `now`.
  void advance(TableTime now, Outbox& out);
  // Whether the room should go (finished long ago, or nobody connected and idle); if so
  // puts its farewell in `out` and sets out.remove.
  void sweep(TableTime now, Outbox& out);

  // ---- the rules engine of an external game (table_engine.cpp) ----
  // The engine answered call `call_id` (Outbox::engine_call). Answers of calls the table no
  // longer waits for are ignored.
  void engine_answered(std::uint64_t call_id, EngineReply reply, TableTime now, Outbox& out);

  // ---- searching bots (table_time.cpp) ----
  // A bot that thought off the strand (Outbox::bot_think) chose `move` for `seat` at `seq`.
  // Played only if the room is still at `seq` and `bot` still plays that seat; otherwise the
  // bots are scheduled again for the state as it is now.
  void bot_answered(const bots::Strategy* bot, Seat seat, std::int64_t seq, Json move,
                    TableTime now, Outbox& out);

  // ---- the store (table_record.cpp) ----
  // The store completed the oldest gating write. A failure stops the game, visibly; a fenced
  // write means another node owns the room: the table lets it go.
  void durable(WriteResult result, Outbox& out);
  // Cluster mode: another node serves the room now. Nothing held goes out; every member is
  // told (room_moved, with the room's new node when known) and stops being a member here;
  // out.remove is set. The table does nothing after this.
  void let_go(std::string_view new_node, Outbox& out);
  bool gone() const { return gone_; }
  // The room's record as the store keeps it.
  RoomRecord record() const;
  // Rebuilds the table from its stored record and moves, before anyone can reach it.
  // `find_player` looks a stored player id up. Returns false when the game no longer replays
  // identically under this engine: the room is then frozen.
  bool restore(const LoadedRoom& stored,
               const std::function<std::shared_ptr<Player>(const std::string&)>& find_player,
               TableTime now);
  // Cluster mode, after restore(): the spectators the cluster's directory kept for the room
  // join as absent spectators (a seated player stays seated only), to get their places back
  // when they resume.
  void restore_spectators(const std::vector<std::shared_ptr<Player>>& players);
  // The players seated or watching here.
  std::vector<std::shared_ptr<Player>> members() const;
  // After restore(): open-room count, grace periods, clocks and bots for the recovered state.
  void resume_after_restore(TableTime now, Outbox& out);

  // The lobby's summary of the room as it is now (list_rooms).
  protocol::RoomSummary summary() const;

 private:
  struct Occupant {
    std::shared_ptr<Player> player;  // null for a bot added with add_bot
    std::string name;
    bool connected = false;
    std::shared_ptr<bots::Strategy> bot;     // set while a bot plays this seat
    std::optional<Clock::time_point> grace;  // the player is away; a bot takes over then
  };
  struct Spectator {
    std::shared_ptr<Player> player;
    bool connected = true;
  };
  enum class MoveBy { kPlayer, kBot, kTimeout };

  // table.cpp: the game's lifecycle.
  // The one path of an accepted move. `caller`: the player who moved (gets the ok).
  // `move_text`: `move`'s compact text, if known (Table::move).
  bool accept_move(Seat seat, Json move, MoveBy by, const Caller* caller, TableTime now,
                   Outbox& out, std::string&& move_text = {});
  // The part of accept_move after the engine applied the move: seq, store, ok, pushes.
  void record_move(Seat seat, Json move, const MoveResult& result, MoveBy by, const Caller* caller,
                   TableTime now, Outbox& out, std::string&& move_text = {});
  void begin_game(TableTime now, Outbox& out);
  void after_accepted(std::string_view events, TableTime now, Outbox& out);
  void finish_game(TableTime now, Outbox& out);
  void freeze(std::string_view why, Outbox& out);
  // Cluster mode: a write failed. The game stops here, as when frozen, but for players it is
  // paused: the node loads the room again from the store once it answers (out.store_stalled)
  // and the game goes on from its last stored move.
  void stall(Outbox& out);
  void count_open(bool open, Outbox& out);
  // The request may only come from the room's creator, in a waiting room; otherwise it is
  // refused (not_allowed, already_started) and false returned.
  bool host_may_change_setup(const Caller& caller, std::string_view what, Outbox& out);

  // table_engine.cpp: an external game's moves go to its engine first (games/external/).
  struct EngineWait {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
    std::uint64_t id = 0;
    external::EngineCall call;
    MoveBy by = MoveBy::kPlayer;
    std::optional<Caller> caller;
    bool probe = false;  // a paused room asking whether the engine answers again
  };
  struct QueuedMove {
    Seat seat = 0;
    Json move;
    MoveBy by = MoveBy::kPlayer;
    std::optional<Caller> caller;
  };
  external::ExternalGame* external_game() const;
  // An engine call is in flight or the engine is failing: no bot moves, no clock runs.
  bool engine_busy() const { return engine_wait_.has_value() || engine_paused_; }
  bool ask_engine(external::ExternalGame& game, Seat seat, Json move, MoveBy by,
                  const Caller* caller, Outbox& out);
  void send_engine_call(external::EngineCall call, MoveBy by, const Caller* caller, bool probe,
                        Outbox& out);
  // Asks the engine for what the game waits on with nobody to act (init, a null action).
  void continue_with_engine(Outbox& out);
  void engine_failed(EngineWait wait, const std::string& cause, TableTime now, Outbox& out);
  void retry_engine(Outbox& out);
  void run_queued_moves(TableTime now, Outbox& out);

  // table_time.cpp
  void schedule_bots(TableTime now);
  void run_bots(TableTime now, Outbox& out);
  // Hands the bots that read the game's history the events of an accepted move.
  void bots_observe(std::string_view events);
  void arm_turn_clock(TableTime now);
  void on_turn_timeout(TableTime now, Outbox& out);
  Json timeout_move(Seat seat);
  void hand_seat_to_bot(Occupant& occupant);
  std::optional<protocol::TurnDeadline> deadline(TableTime now) const;

  // table_pushes.cpp: membership and what members are sent.
  std::optional<int> seat_of(const Player& player) const;
  Spectator* spectator_of(const Player& player);
  bool is_member(const Player& player) const;
  bool any_human_connected() const;
  // The room push to every member and the lobby's summary; `persist`: store the record too.
  void publish_room(Outbox& out, bool persist = true);
  void push_room_to(const std::shared_ptr<Player>& player, Outbox& out);
  // A spectator came or went: the lobby's summary now, the room push to the members later
  // (spectator_push_delay).
  void publish_spectators_later(TableTime now, Outbox& out);
  void push_state_to(const std::shared_ptr<Player>& player, TableTime now, Outbox& out);
  // The room's latest chat lines, to a member who arrives or comes back (none: nothing).
  // Lines of players they muted are left out.
  void push_chat_history_to(const std::shared_ptr<Player>& player, Outbox& out);
  // The current game's latest public events (the play log), after the state push, to a
  // member who arrives or comes back (none: nothing).
  void push_event_history_to(const std::shared_ptr<Player>& player, Outbox& out);
  // Keeps the public events of the move (or the deal) that reached `seq` in event_history_.
  void remember_events(std::int64_t seq, std::string_view events);
  void broadcast_state(std::string_view events, TableTime now, Outbox& out);
  // To every member; a chat line (`chat_author` set) skips the members who muted its author.
  void send_to_members(const Frame& frame, Outbox& out, const std::string& chat_author = {});
  void send_to(const std::shared_ptr<Player>& player, Frame frame, Outbox& out);
  void reply(const Caller& caller, std::string_view message, Outbox& out);
  void reply_error(const Caller& caller, protocol::ErrorCode code, const std::string& message,
                   Outbox& out);
  // An engine's own refusal code (e.g. "must_include_lowest"), forwarded unchanged.
  void reply_refusal(const Caller& caller, const MoveResult& refusal, Outbox& out);
  void reply_ok(const Caller& caller, std::optional<std::int64_t> seq, Outbox& out);
  // The held replies will never go out: answers each held request with `answer(re)`.
  template <typename Answer>
  void answer_held_replies(const Answer& answer, Outbox& out);

  // table_record.cpp
  void persist_move(Seat seat, Json move, TableTime now, Outbox& out, std::string&& move_text);
  void persist_room(Outbox& out, bool gate_frames = false);
  // A rated game ended: its result and sides go to the store, which rates it once.
  void record_rated_game(TableTime now, Outbox& out);
  // Who holds each seat, for the ratings (rated_identities_).
  void note_rated_identities();

  TableSetup setup_;
  TableTimings timings_;
  Metrics& metrics_;
  GameMetrics& game_metrics_;  // this game kind's counters

  RoomStatus status_ = RoomStatus::kWaiting;
  std::vector<std::optional<Occupant>> seats_;
  std::vector<Spectator> spectators_;
  std::unique_ptr<Game> game_;
  std::int64_t seq_ = 0;
  std::size_t moves_in_game_ = 0;  // moves accepted in this game (the store keeps the moves)
  int game_number_ = 0;            // 1, 2, ... for each (re)start
  // A rated room's current game: who holds each seat as the game began (a player, or a bot the
  // server seated as "bot:<strategy>"), and the seats whose player left it with leave_room.
  std::vector<RatedSeat> rated_identities_;
  std::vector<bool> left_game_;
  std::uint64_t seed_ = 0;
  std::int64_t start_seq_ = 0;
  UnixMillis created_ms_ = 0;
  UnixMillis game_started_ms_ = 0;
  std::optional<UnixMillis> finished_ms_;
  bool gone_ = false;         // let go to another node
  bool counted_open_ = true;  // the lobby counted this room for its creator when creating it
  WriteAheadGate gate_;
  // Replies held by gate_ until a write is durable, by request: when the write fails or is
  // fenced they never go out, and each request is answered with an error carrying its `re`
  // instead (a client waits for the answer to every request it sends).
  struct HeldReply {
    std::shared_ptr<Connection> connection;
    Json re;
  };
  std::vector<HeldReply> held_replies_;
  // The bots' random source, made when a bot first plays: an mt19937_64 is 2.5 KB, most of
  // a table, and a table of people never needs one.
  Rng& bot_rng();
  std::uint64_t bot_seed_;
  std::unique_ptr<Rng> bot_rng_;
  std::optional<Clock::time_point> bot_due_;
  // When the members are next told the spectator count (publish_spectators_later).
  std::optional<Clock::time_point> spectators_due_;
  bool bot_thinking_ = false;  // a BotThink is out: no other bot move until it is answered
  // The bot thinking off the strand, and the events it is to observe once it answers: it is
  // not touched here while another thread runs its search (when seats act at once).
  const bots::Strategy* thinking_bot_ = nullptr;
  std::vector<Json> observe_later_;
  bool reset_later_ = false;  // a new game started meanwhile
  struct TurnClock {
    Clock::time_point at;
    UnixMillis at_unix_ms = 0;
  };
  std::optional<TurnClock> turn_clock_;
  Clock::time_point last_activity_;
  Clock::time_point finished_at_{};
  // An external game's engine: the call in flight, moves that came meanwhile, and whether
  // the engine is failing (the room is paused; engine_retry_ asks it again).
  std::optional<EngineWait> engine_wait_;
  Fifo<QueuedMove> engine_queue_;
  std::uint64_t engine_calls_ = 0;
  bool engine_paused_ = false;
  // Cluster mode: a write failed and this table waits to be replaced by one loaded from the
  // store (stall()); it writes nothing more.
  bool store_stalled_ = false;
  // The latest chat lines (at most kChatHistory), for members who arrive or come back. Kept
  // in memory only: a restart or a takeover starts it afresh.
  static constexpr std::size_t kChatHistory = 50;
  Fifo<protocol::ChatLine> chat_history_;
  // The current game's public events, one entry per accepted move (and the deal), for a
  // member who arrives or comes back to fill their play log: exactly the `events` every member
  // was pushed, never a seat's view. Bounded because a long game (a Spades match to 500) runs
  // to many hundreds of moves and a room lives in memory; 200 moves is more than the play log
  // shows (the web client keeps its latest 200 events) at a few tens of KiB per room at most.
  // Cleared when a game starts; rebuilt by restore() from the stored moves, so a restart or a
  // takeover keeps it (except the `timeout` marks, which the stored moves do not record).
  static constexpr std::size_t kEventHistory = 200;
  // The events of a game's deal, as pushed with its first state (and kept in the history).
  static constexpr std::string_view kStartEvents = R"([{"type":"start"}])";
  Fifo<protocol::EventEntry> event_history_;
  int engine_failures_ = 0;  // in a row, for the backoff
  std::optional<Clock::time_point> engine_retry_;
  // broadcast_state's lists, kept from move to move so that it allocates none.
  std::vector<Seat> view_seats_;
  std::vector<std::shared_ptr<Player>> view_players_;  // null for the spectators' view
  std::vector<std::string> view_texts_;
  std::vector<std::string*> view_outs_;
};

}  // namespace parlor::server
