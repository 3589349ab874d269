// The `code` field of an error reply. Wire names are part of protocol v1: add
// codes as games need them, never rename one or reuse it with another meaning.
//
// Engines return their own, game-specific codes as strings (for example
// "must_include_lowest"); the server forwards those unchanged, which is why the
// error encoder also accepts a string code. The codes here are the ones the
// protocol and the server themselves produce.
#pragma once

#include <optional>
#include <string_view>

namespace parlor::protocol {

enum class ErrorCode {
  kBadRequest,           // malformed frame or message
  kHelloRequired,        // anything but hello before hello
  kUnsupportedProtocol,  // hello asked for a protocol version this server does not speak
  kInvalidToken,         // hello with an unknown or expired token
  kUnknownGame,          // create_room with a kind nobody registered
  kBadOptions,           // create_room options or seat count the game refuses
  kNoSuchRoom,
  kRoomFull,
  kSeatTaken,
  kNotSeated,  // a seat-only action from someone without a seat there
  kNotStarted,
  kAlreadyStarted,
  kGameOver,
  kNotYourTurn,
  kIllegalMove,  // generic rule violation; the message says which rule
  kCardNotHeld,
  kMustFollowSuit,
  kDoesNotBeat,
  kWrongCombination,
  kStaleState,  // move.seq is behind the room's state
  kRateLimited,
  kTooManyRooms,
  kNotAllowed,         // the request is well formed but this player may not do it
  kUnknownStrategy,    // add_bot with a strategy no bot implements
  kInternalError,      // a bug on our side; the request changed nothing
  kRoomMoved,          // cluster mode: another node serves the room (see encode_room_moved)
  kEngineUnavailable,  // the room's rules engine (an external game) failed; the room is paused
  kAlreadyQueued,      // quick_play from a player already waiting for a table
  kNotQueued,          // cancel_quick_play from a player who is not waiting
  kAlreadySeated,      // quick_play from a player seated at an unfinished table
  kRatedNoBots,        // add_bot in a rated room (only the server seats bots in rated play)
  kNoSuchPlayer,       // GET /api/players/<id> of an id with no rated game
  kShuttingDown,       // create_room or quick_play on a draining server: reconnect, ask again
  kRoomLocked,         // join_room of a newcomer in a room its creator locked
  kSeatEmpty,          // remove_seat of a seat nobody holds
  kBanned,             // hello with the token of a player an administrator banned
};

// Every code, in declaration order: for tests and documentation checks.
inline constexpr ErrorCode kAllErrorCodes[] = {
    ErrorCode::kBadRequest,       ErrorCode::kHelloRequired,  ErrorCode::kUnsupportedProtocol,
    ErrorCode::kInvalidToken,     ErrorCode::kUnknownGame,    ErrorCode::kBadOptions,
    ErrorCode::kNoSuchRoom,       ErrorCode::kRoomFull,       ErrorCode::kSeatTaken,
    ErrorCode::kNotSeated,        ErrorCode::kNotStarted,     ErrorCode::kAlreadyStarted,
    ErrorCode::kGameOver,         ErrorCode::kNotYourTurn,    ErrorCode::kIllegalMove,
    ErrorCode::kCardNotHeld,      ErrorCode::kMustFollowSuit, ErrorCode::kDoesNotBeat,
    ErrorCode::kWrongCombination, ErrorCode::kStaleState,     ErrorCode::kRateLimited,
    ErrorCode::kTooManyRooms,     ErrorCode::kNotAllowed,     ErrorCode::kUnknownStrategy,
    ErrorCode::kInternalError,    ErrorCode::kRoomMoved,      ErrorCode::kEngineUnavailable,
    ErrorCode::kAlreadyQueued,    ErrorCode::kNotQueued,      ErrorCode::kAlreadySeated,
    ErrorCode::kRatedNoBots,      ErrorCode::kNoSuchPlayer,   ErrorCode::kShuttingDown,
    ErrorCode::kRoomLocked,       ErrorCode::kSeatEmpty,      ErrorCode::kBanned,
};

// The snake_case wire name, e.g. "bad_request".
std::string_view wire_name(ErrorCode code);

// The inverse of wire_name; nullopt for engine-specific or unknown codes.
std::optional<ErrorCode> error_code_from_wire(std::string_view name);

// The HTTP status that answers a request refused with `code` over REST (the replay endpoint
// and anything after it): 404 for what does not exist (yet), 403 for what this requester may
// not see, 429 for rate limits, 500 for our own failures, 503 for a server that cannot serve it
// now (ask again, elsewhere or later), 400 for the rest.
int http_status(ErrorCode code);

}  // namespace parlor::protocol
