// Client requests of protocol v1, one struct per `type`, as the decoder hands
// them to the server: already checked for shape, types, ranges and lengths, so
// the server only decides whether the request is allowed, never whether it is
// well formed. Field names follow the wire names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "games/core/game.h"

namespace parlor::protocol {

// {"type":"hello","name":N,"token":T,"protocol":1}: at least one of name and token.
struct Hello {
  std::optional<std::string> name;   // trimmed, 1..max_name_bytes, no control characters
  std::optional<std::string> token;  // a secret: never log it or echo it
  int protocol = 1;                  // any non-negative int; the server checks it is supported
};

struct ListGames {};

// {"type":"rename","name":N}: the caller's new name, checked as hello's.
struct Rename {
  std::string name;  // trimmed, 1..max_name_bytes, no control characters
};

// {"type":"revoke_token"}: the caller's token stops working; the answer carries a new one.
struct RevokeToken {};

// list_rooms, optionally filtered and paged. Rooms come in the order of their ids, so a page
// that ends at room X continues with the rooms after X however the list changes meanwhile.
struct ListRooms {
  std::optional<std::string> kind;    // only this kind of game
  std::optional<std::string> status;  // only rooms in this status (a wire name)
  bool free_seat = false;             // only rooms with a free seat
  std::optional<int> limit;           // at most this many (1..kMaxRoomsPerPage); absent: all
  std::optional<std::string> after;   // the cursor: rooms whose id sorts after this one
};

// The largest page of list_rooms.
constexpr int kMaxRoomsPerPage = 500;

// Lobby push: a snapshot now (as the reply), then room_added / room_changed / room_removed.
// A second subscribe_lobby replaces the first (and its filter).
struct SubscribeLobby {
  std::optional<std::string> kind;  // only rooms of this kind; absent: every kind
};
struct UnsubscribeLobby {};

// Quick play: wait for a table of this game (seat count and game options as in create_room),
// seated with other waiting players, or with bots after a wait.
struct QuickPlay {
  std::string kind;
  std::optional<int> seats;       // absent: the game's default
  Json options = Json::object();  // the game's own options only
  bool rated = false;             // a rated table (docs/ARCHITECTURE.md, "Ratings")
};
struct CancelQuickPlay {};

struct CreateRoom {
  std::string kind;
  std::optional<int> seats;       // absent: the game's default; the game checks its own range
  Json options = Json::object();  // always an object (absent or null became {})
  bool rated = false;             // its games update the players' ratings
};

struct JoinRoom {
  std::string room;
  std::optional<int> seat;  // absent: the first free seat
};

struct WatchRoom {
  std::string room;
};

struct LeaveRoom {
  std::string room;
};

struct AddBot {
  std::string room;
  int seat = 0;
  std::string strategy = "random";
};

// Starts the game, or a rematch in a finished room.
struct Start {
  std::string room;
};

struct Chat {
  std::string room;
  std::string text;  // trimmed, 1..max_chat_bytes, no control characters but tab and newline
};

struct Ping {};

// The seat the move is for comes from the connection, never from the message.
struct Move {
  std::string room;
  Json move = Json::object();       // always an object; the engine validates the rest
  std::optional<std::int64_t> seq;  // the state the client acted on, for stale_state
  // The move's text in the frame, when it is exactly what json_text::value writes for `move`
  // (compact, keys in order, nothing escaped): a durable store records it rather than write
  // the move again. It views the frame the request was decoded from, so it is valid only
  // while that frame is; empty when the frame wrote the move any other way.
  std::string_view move_text;
};

struct LegalMoves {
  std::string room;
};

// A room's game step by step as `seat` saw it (absent: the spectator view).
struct GetReplay {
  std::string room;
  std::optional<int> seat;
  std::optional<int> game;  // 1, 2, ... (rematches); absent: the room's latest game
};

// Host controls: the room's creator (known from the connection, never from the message)
// empties a seat of a waiting room, or locks the room against newcomers.
struct RemoveSeat {
  std::string room;
  int seat = 0;
};
struct LockRoom {
  std::string room;
};
struct UnlockRoom {
  std::string room;
};

// The asking player stops (or starts again) receiving `player`'s chat.
struct Mute {
  std::string player;
};
struct Unmute {
  std::string player;
};

using Command = std::variant<Hello, ListGames, ListRooms, CreateRoom, JoinRoom, WatchRoom,
                             LeaveRoom, AddBot, Start, Chat, Ping, Move, LegalMoves, GetReplay,
                             SubscribeLobby, UnsubscribeLobby, QuickPlay, CancelQuickPlay, Rename,
                             RevokeToken, RemoveSeat, LockRoom, UnlockRoom, Mute, Unmute>;

// The wire `type` of a command, e.g. "create_room": for logs and per-type metrics.
std::string_view command_name(const Command& command);

struct Request {
  Json id;  // the client's id (string or integer), null when absent; replies echo it as `re`
  Command command;
};

}  // namespace parlor::protocol
