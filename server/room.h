// A room: an actor on its own strand that owns one game table — the Game, the seat
// map, spectators, the move log and `seq`. Every public method posts onto the strand,
// so nothing else ever touches a room's state; the room never waits on a socket (it
// only queues frames on connections).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bots/strategy.h"
#include "games/core/game_info.h"
#include "games/core/rng.h"
#include "protocol/encode.h"
#include "server/connection.h"
#include "server/identity.h"
#include "server/store/store.h"

namespace parlor::server {

struct ServerConfig;
class Metrics;

using Clock = std::chrono::steady_clock;

// Who asked: the player, the connection to answer on, and the request id to echo as `re`.
struct Caller {
  std::shared_ptr<Player> player;
  std::shared_ptr<Connection> connection;
  Json re;
  Clock::time_point received = Clock::now();
};

using protocol::RoomStatus;

// What the room tells the lobby directory.
struct RoomHooks {
  // The lobby's copy of the room summary (for list_rooms) changed.
  std::function<void(const std::string& room, std::shared_ptr<const protocol::RoomSummary> summary)>
      summary_changed;
  // The room was created by `creator` and is no longer unfinished (or is again: delta +1).
  std::function<void(const std::shared_ptr<Player>& creator, int delta)> open_rooms_changed;
};

struct RoomSetup {
  std::string id;
  Store* store = nullptr;  // null: nothing is persisted
  const GameInfo* game = nullptr;
  int seats = 0;
  Json game_options;                        // normalized: every default filled in
  std::optional<std::uint64_t> fixed_seed;  // the `seed` room option (dev mode only)
  bool is_private = false;
  std::shared_ptr<Player> creator;
  // A disconnected player's seat is played by a bot after this long (until they return).
  std::chrono::seconds grace{60};
  // 0: no turn clock. Otherwise a seat to act gets this long before on_timeout moves for it.
  std::chrono::seconds turn_seconds{0};
  std::string on_timeout = "bot";  // "bot": the greedy bot moves; "pass": pass or first legal
};

class Room : public std::enable_shared_from_this<Room> {
 public:
  Room(boost::asio::io_context& io, RoomSetup setup, const ServerConfig& config, Metrics& metrics,
       RoomHooks hooks);

  const std::string& id() const { return setup_.id; }
  bool is_private() const { return setup_.is_private; }

  // Seats the caller (first free seat when none is given). `creating`: the reply is
  // room_created rather than joined.
  void join(Caller caller, std::optional<int> seat, bool creating = false);
  void watch(Caller caller);
  void leave(Caller caller);
  void add_bot(Caller caller, int seat, std::string strategy);
  void start(Caller caller);
  void chat(Caller caller, std::string text);
  void move(Caller caller, Json move, std::optional<std::int64_t> seq);
  void legal_moves(Caller caller);
  // After a reconnect: the room and state pushes for this player, on its new connection.
  void resume(std::shared_ptr<Player> player);
  // A member's connection went away or came back: the `connected` flags changed.
  void connection_changed(std::shared_ptr<Player> player);
  // Decides whether the room should be removed (idle or finished long ago); calls `remove`.
  void sweep(Clock::time_point now, std::function<void(const std::string&)> remove);
  // Server shutdown: stop timers.
  void shutdown();
  // Rebuilds the room from its stored record and moves (before anyone can reach it).
  // Returns false when the game no longer replays identically: the room is then frozen.
  bool restore(const LoadedRoom& stored, Identity& identity);
  // After restore() and registration: restarts grace periods, clocks and bots.
  void resume_after_restore();
  // The room's record as the store keeps it.
  RoomRecord record() const;

 private:
  struct Occupant {
    std::shared_ptr<Player> player;  // null for a bot added with add_bot
    std::string name;
    std::unique_ptr<bots::Strategy> bot;                     // set while a bot plays this seat
    std::shared_ptr<boost::asio::steady_timer> grace_timer;  // running while the player is away
  };

  // All below run on strand_.
  void do_join(const Caller& caller, std::optional<int> seat, bool creating);
  void do_move(const Caller& caller, Json move, std::optional<std::int64_t> seq);
  void begin_game();
  // `events`: the public events as JSON text (an array).
  void after_accepted(std::string_view events, std::optional<Clock::time_point> received);
  void schedule_bots();
  void run_bots();
  void finish_game();
  // A bot move (or the on_timeout move) for `seat`; false when it could not move.
  bool bot_move(Seat seat, bots::Strategy& strategy);
  void player_presence_changed(const Player& player);
  void arm_turn_clock();
  void on_turn_timeout(std::int64_t armed_at_seq);
  Json timeout_move(Seat seat);
  std::optional<protocol::TurnDeadline> deadline() const;

  std::optional<int> seat_of(const Player& player) const;
  bool is_member(const Player& player) const;
  bool any_human_connected() const;

  protocol::RoomSummary summary() const;
  // Room push to everyone + lobby summary update; `persist`: save the room record too.
  void publish_room(bool persist = true);
  void push_room_to(const std::shared_ptr<Player>& player);
  // A state push for `viewer`: the move's shared parts around its view and prompt.
  Frame state_frame(const protocol::StateFrameParts& parts, Seat viewer, bool acts) const;
  // A state push in two halves around the view: the text up to it, and the rest after it.
  static std::string state_text_start(const protocol::StateFrameParts& parts);
  Frame state_text_finish(std::string text, const protocol::StateFrameParts& parts, Seat viewer,
                          bool acts) const;
  void push_state_to(const std::shared_ptr<Player>& player, std::string_view events);
  void broadcast_state(std::string_view events);
  void send_to_members(const Frame& frame);

  void reply(const Caller& caller, std::string frame);
  void reply_error(const Caller& caller, std::string_view code, const std::string& message);
  void reply_ok(const Caller& caller, std::optional<std::int64_t> seq = std::nullopt);

  // Write-ahead: frames made while a move is not yet durable wait here, in order, until the
  // store confirms it. Without a store everything is durable at once.
  struct HeldFrame {
    std::shared_ptr<Player> player;  // one of player and connection is set
    std::shared_ptr<Connection> connection;
    Frame frame;
  };
  void deliver(const std::shared_ptr<Player>& player, Frame frame);
  void deliver(const std::shared_ptr<Connection>& connection, Frame frame);
  // The accepted move that made seq_ goes to the store; frames wait until it is durable.
  void persist_move(Seat seat, Json move);
  // Saves the room record; with `gate_frames`, frames wait for it too (a new deal's seed).
  void persist_room(bool gate_frames = false);
  void on_durable(bool ok);

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  RoomSetup setup_;
  const ServerConfig& config_;
  Metrics& metrics_;
  RoomHooks hooks_;

  RoomStatus status_ = RoomStatus::kWaiting;
  std::vector<std::optional<Occupant>> seats_;
  std::vector<std::shared_ptr<Player>> spectators_;
  std::unique_ptr<Game> game_;
  std::int64_t seq_ = 0;
  std::size_t moves_in_game_ = 0;  // moves accepted in this game (the store keeps the moves)
  int game_number_ = 0;            // 1, 2, ... for each (re)start
  std::uint64_t seed_ = 0;
  std::int64_t start_seq_ = 0;
  std::int64_t created_ms_ = 0;
  std::int64_t game_started_ms_ = 0;
  std::optional<std::int64_t> finished_ms_;
  // Writes whose frames are held; the store completes writes in order, so frames go out
  // once none is outstanding.
  int gating_writes_ = 0;
  std::deque<HeldFrame> held_;
  bool counted_open_ = false;  // counts toward the creator's open rooms
  Rng bot_rng_;
  boost::asio::steady_timer bot_timer_;
  bool bot_timer_armed_ = false;
  boost::asio::steady_timer turn_timer_;
  std::optional<Clock::time_point> turn_deadline_;
  std::optional<std::chrono::system_clock::time_point> turn_deadline_wall_;
  Clock::time_point last_activity_ = Clock::now();
  Clock::time_point finished_at_{};
  // broadcast_state's lists, kept from move to move so that it allocates none.
  struct Viewer {
    Seat seat;
    std::shared_ptr<Connection> connection;  // null for the spectators' view
  };
  std::vector<Viewer> viewers_;
  std::vector<Seat> view_seats_;
  std::vector<std::string> view_texts_;
  std::vector<std::string*> view_outs_;
};

}  // namespace parlor::server
