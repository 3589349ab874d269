#include "protocol/error_code.h"

namespace parlor::protocol {

std::string_view wire_name(ErrorCode code) {
  // A switch without default: adding an enumerator without a name is a -Wswitch warning.
  switch (code) {
    case ErrorCode::kBadRequest:
      return "bad_request";
    case ErrorCode::kHelloRequired:
      return "hello_required";
    case ErrorCode::kUnsupportedProtocol:
      return "unsupported_protocol";
    case ErrorCode::kInvalidToken:
      return "invalid_token";
    case ErrorCode::kUnknownGame:
      return "unknown_game";
    case ErrorCode::kBadOptions:
      return "bad_options";
    case ErrorCode::kNoSuchRoom:
      return "no_such_room";
    case ErrorCode::kRoomFull:
      return "room_full";
    case ErrorCode::kSeatTaken:
      return "seat_taken";
    case ErrorCode::kNotSeated:
      return "not_seated";
    case ErrorCode::kNotStarted:
      return "not_started";
    case ErrorCode::kAlreadyStarted:
      return "already_started";
    case ErrorCode::kGameOver:
      return "game_over";
    case ErrorCode::kNotYourTurn:
      return "not_your_turn";
    case ErrorCode::kIllegalMove:
      return "illegal_move";
    case ErrorCode::kCardNotHeld:
      return "card_not_held";
    case ErrorCode::kMustFollowSuit:
      return "must_follow_suit";
    case ErrorCode::kDoesNotBeat:
      return "does_not_beat";
    case ErrorCode::kWrongCombination:
      return "wrong_combination";
    case ErrorCode::kStaleState:
      return "stale_state";
    case ErrorCode::kRateLimited:
      return "rate_limited";
    case ErrorCode::kTooManyRooms:
      return "too_many_rooms";
    case ErrorCode::kNotAllowed:
      return "not_allowed";
    case ErrorCode::kUnknownStrategy:
      return "unknown_strategy";
    case ErrorCode::kInternalError:
      return "internal_error";
    case ErrorCode::kRoomMoved:
      return "room_moved";
    case ErrorCode::kEngineUnavailable:
      return "engine_unavailable";
    case ErrorCode::kAlreadyQueued:
      return "already_queued";
    case ErrorCode::kNotQueued:
      return "not_queued";
    case ErrorCode::kRatedNoBots:
      return "rated_no_bots";
    case ErrorCode::kNoSuchPlayer:
      return "no_such_player";
    case ErrorCode::kAlreadySeated:
      return "already_seated";
    case ErrorCode::kShuttingDown:
      return "shutting_down";
    case ErrorCode::kRoomLocked:
      return "room_locked";
    case ErrorCode::kSeatEmpty:
      return "seat_empty";
    case ErrorCode::kBanned:
      return "banned";
  }
  // Only reachable through a cast of an out-of-range integer.
  return "internal_error";
}

std::optional<ErrorCode> error_code_from_wire(std::string_view name) {
  for (ErrorCode code : kAllErrorCodes) {
    if (wire_name(code) == name) return code;
  }
  return std::nullopt;
}

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNoSuchRoom:
    case ErrorCode::kUnknownGame:
    case ErrorCode::kNotStarted:
    case ErrorCode::kNoSuchPlayer:
      return 404;
    case ErrorCode::kNotAllowed:
    case ErrorCode::kNotSeated:
    case ErrorCode::kInvalidToken:
    case ErrorCode::kHelloRequired:
    case ErrorCode::kRoomLocked:
    case ErrorCode::kBanned:
      return 403;
    case ErrorCode::kRateLimited:
    case ErrorCode::kTooManyRooms:
      return 429;
    case ErrorCode::kRoomMoved:
      return 421;  // Misdirected Request: ask the node that serves the room
    case ErrorCode::kInternalError:
      return 500;
    case ErrorCode::kEngineUnavailable:
    case ErrorCode::kShuttingDown:
      return 503;
    case ErrorCode::kBadRequest:
    case ErrorCode::kUnsupportedProtocol:
    case ErrorCode::kBadOptions:
    case ErrorCode::kRoomFull:
    case ErrorCode::kSeatTaken:
    case ErrorCode::kAlreadyStarted:
    case ErrorCode::kGameOver:
    case ErrorCode::kNotYourTurn:
    case ErrorCode::kIllegalMove:
    case ErrorCode::kCardNotHeld:
    case ErrorCode::kMustFollowSuit:
    case ErrorCode::kDoesNotBeat:
    case ErrorCode::kWrongCombination:
    case ErrorCode::kStaleState:
    case ErrorCode::kUnknownStrategy:
    case ErrorCode::kAlreadyQueued:
    case ErrorCode::kNotQueued:
    case ErrorCode::kAlreadySeated:
    case ErrorCode::kRatedNoBots:
    case ErrorCode::kSeatEmpty:
      return 400;
  }
  return 400;
}

}  // namespace parlor::protocol
