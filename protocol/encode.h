// Server messages of protocol v1, each built exactly as protocol/PROTOCOL.md
// shows it and returned as the text of one WebSocket frame.
//
// Replies take `re`, the id of the request they answer: when it is not null the
// message carries `"re": ID`, otherwise no `re` at all. Pushes (room, state,
// chat, game_over) never carry one.
//
// Every encoder serializes with a replacing error handler: a string that is not
// valid UTF-8 (a name from an old log, a bug in an engine message) becomes U+FFFD
// instead of making dump() throw in the middle of a broadcast.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "games/core/game.h"
#include "games/core/game_info.h"
#include "protocol/decode.h"
#include "protocol/error_code.h"

namespace parlor::protocol {

// kFrozen: a recovered game that no longer replays identically under this server's engine; it
// is kept, visible and unplayable rather than silently diverging.
// kPaused: a game whose rules engine (an external game) is not answering; it goes on as
// "playing" once the engine answers again.
enum class RoomStatus { kWaiting, kPlaying, kFinished, kFrozen, kPaused };

// "waiting", "playing", "finished", "frozen" or "paused".
std::string_view wire_name(RoomStatus status);

struct SeatSummary {
  std::string player;  // player id (never the token)
  std::string name;
  bool bot = false;
  bool connected = true;
};

// ROOM_SUMMARY: one entry of `rooms`, and the body of the `room` push.
struct RoomSummary {
  std::string room;
  std::string kind;
  RoomStatus status = RoomStatus::kWaiting;
  std::vector<std::optional<SeatSummary>> seats;  // one per seat; nullopt: the seat is free
  int spectators = 0;
  // The normalized options (defaults filled in), so the lobby can show variants. Omitted
  // from the wire when null.
  Json options = Json::object();
  // The creator locked the room against newcomers: "locked":true, omitted while unlocked.
  bool locked = false;
  // The creator's player id, who may use the host controls: "host":P, omitted when the room
  // has none (quick play's tables).
  std::string host;
  // Cluster mode: the id of the node serving the room ("node":ID, omitted on a single
  // server), so a client may connect to that node through the proxy (`?node=ID`) and play
  // without a hop between nodes.
  std::string node;
};

// {"type":"room","room":..,"kind":..,"status":..,"seats":[..],"spectators":N,"options":{..}}
Json room_summary_json(const RoomSummary& room);

// Serializes one message the way every encoder here does: compact, never throwing on
// invalid UTF-8. For messages built elsewhere.
std::string to_wire(const Json& message);

// Adds "re": re to `message` unless re is null.
void attach_re(Json& message, const Json& re);

// ---- Replies ----

// `dev`: the server runs in development mode (it takes a room's `seed`); sent only when true.
// `node`: in cluster mode, the id of the node holding the connection; omitted when empty.
std::string encode_welcome(const Json& re, std::string_view player, std::string_view token,
                           int protocol, bool dev = false, std::string_view node = {});

// {"type":"error","re":ID,"code":CODE,"message":TEXT}. The string overload forwards the
// game-specific codes engines return (e.g. "must_include_lowest") unchanged.
std::string encode_error(const Json& re, ErrorCode code, std::string_view message);
std::string encode_error(const Json& re, std::string_view code, std::string_view message);
// The reply to a frame decode_request refused.
std::string encode_error(const DecodeError& error);
// Cluster mode's room_moved error: `room` is served by another node now. `node`: that node's
// host:port when known ("" when the room is between owners). As a reply it carries `re`; as
// a push (the room left this node while the client was in it) `re` is null.
std::string encode_room_moved(const Json& re, std::string_view room, std::string_view node,
                              std::string_view message);

// {"type":"games","games":[game_info_json(...)...]}
std::string encode_games(const Json& re, const std::vector<GameInfo>& games);
// {"type":"rooms","rooms":[ROOM_SUMMARY...]}
std::string encode_rooms(const Json& re, const std::vector<RoomSummary>& rooms);
std::string encode_room_created(const Json& re, std::string_view room);
std::string encode_joined(const Json& re, std::string_view room, int seat);
std::string encode_watching(const Json& re, std::string_view room);
std::string encode_left(const Json& re, std::string_view room);
// {"type":"ok"}; a move's reply adds the new state's "seq".
std::string encode_ok(const Json& re, std::optional<std::int64_t> seq = std::nullopt);
std::string encode_pong(const Json& re);
// {"type":"legal_moves","room":ID,"moves":[MOVE...]}
std::string encode_legal_moves(const Json& re, std::string_view room, const Json& moves);

// ---- Pushes ----

// A running turn clock: when it runs out in server time (milliseconds since the Unix epoch)
// and how much of it was left when the frame was made.
struct TurnDeadline {
  std::int64_t at_unix_ms = 0;
  std::int64_t remaining_ms = 0;
};

// The room push: the summary plus "you", the receiver's seat (null for a spectator).
std::string encode_room(const RoomSummary& room, std::optional<int> you);

// The room push for every member of a room from one serialization of the summary: "you" is
// the last key in dump order, so each member's frame is the shared text with its own "you"
// added before the closing brace. Same bytes as encode_room.
class RoomPush {
 public:
  explicit RoomPush(const RoomSummary& room);
  std::string for_viewer(std::optional<int> you) const;

 private:
  std::string head_;  // the summary's text without its closing brace
};
// One line of a room's chat as its history keeps it.
struct ChatLine {
  std::string player;
  std::string name;
  std::string text;
  std::int64_t at_ms = 0;  // when the server pushed it (Unix milliseconds)
};
// The room's latest chat lines, oldest first, for a member who arrives or comes back.
std::string encode_chat_history(std::string_view room, std::span<const ChatLine> lines);
std::string encode_chat(std::string_view room, std::string_view player, std::string_view name,
                        std::string_view text);
// One accepted move's public events as a room's play history keeps them: the `seq` the move
// reached and the events' JSON text (an array), exactly as the state push carried it.
struct EventEntry {
  std::int64_t seq = 0;
  std::string events;
};
// The current game's (number `game`) latest public events, oldest first, up to the room's
// state `seq`, for a member who arrives or comes back: {"type":"event_history","room":ID,
// "game":G,"seq":S,"entries":[{"seq":N,"events":[...]},...]}. The events' text is copied as
// it is.
std::string encode_event_history(std::string_view room, int game, std::int64_t seq,
                                 std::span<const EventEntry> entries);
// {"type":"seat_removed","room":ID,"seat":N,"reason":TEXT}: to the player the room's creator
// took off `seat`; the room is no longer theirs.
std::string encode_seat_removed(std::string_view room, int seat, std::string_view reason);
// {"type":"room_closed","room":ID,"reason":TEXT}: to every member of a room an administrator
// closed.
std::string encode_room_closed(std::string_view room, std::string_view reason);
// {"type":"game_over","room":ID,"result":{"scores":[...],"winners":[...],...}}
std::string encode_game_over(std::string_view room, const Json& result);

// {"type":"state","room":ID,"seq":N,"view":VIEW,"to_act":[SEATS],"prompt":P,"events":[...]}
// plus "deadline" (server time, ms since the epoch) and "deadline_ms" (ms left when the frame
// was made) while a turn clock runs. `prompt` is null for spectators and seats not in to_act.
std::string encode_state(std::string_view room, std::int64_t seq, const Json& view,
                         std::span<const Seat> to_act, const Json& prompt, const Json& events,
                         std::optional<TurnDeadline> deadline = std::nullopt);

// The hot path: a move's state pushes differ only in view and prompt, so everything else is
// serialized once per move and each frame is head + VIEW + middle + PROMPT + tail, with the
// view and prompt written straight into it (Game::write_view / write_prompt).
struct StateFrameParts {
  std::string head;    // {"type":"state","room":ID,"seq":N,"view":
  std::string middle;  // ,"to_act":[SEATS],"prompt":
  std::string tail;    // ,"events":[...](,"deadline":..,"deadline_ms":..)}
};
// `events` is the public events' JSON text (an array), copied as it is.
StateFrameParts state_frame_parts(std::string_view room, std::int64_t seq,
                                  std::span<const Seat> to_act, std::string_view events,
                                  std::optional<TurnDeadline> deadline);

}  // namespace parlor::protocol
