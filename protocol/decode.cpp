#include "protocol/decode.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "protocol/bounded_json.h"
#include "protocol/plain_move.h"
#include "protocol/text.h"

namespace parlor::protocol {
namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

// The value of an integer JSON number when it lies in [low, high]. Type and range are
// checked before get<>: get<int>() on 1e300 or 2^64-1 does not give a usable number.
std::optional<std::int64_t> integer_in_range(const Json& value, std::int64_t low,
                                             std::int64_t high) {
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (high < 0 || number > static_cast<std::uint64_t>(high)) return std::nullopt;
    if (low > 0 && number < static_cast<std::uint64_t>(low)) return std::nullopt;
    return static_cast<std::int64_t>(number);
  }
  if (value.is_number_integer()) {
    const auto number = value.get<std::int64_t>();
    if (number < low || number > high) return std::nullopt;
    return number;
  }
  return std::nullopt;  // floats (1.0, 1e300, 2^64 and beyond), strings, ...
}

// The request's id: null when absent, nullopt when it is there but not an integer or a
// string of bounded length (and so must not be echoed).
std::optional<Json> read_id(const Json& message, const Limits& limits) {
  if (!message.is_object()) return Json();
  const auto it = message.find("id");
  if (it == message.end() || it->is_null()) return Json();
  if (it->is_number_integer()) return *it;
  if (it->is_string() && it->get_ref<const std::string&>().size() <= limits.max_identifier_bytes) {
    return *it;
  }
  return std::nullopt;
}

// Reads the fields of one message. The first problem wins; later reads still return
// harmless defaults so each per-type decoder reads straight through without branching.
class Reader {
 public:
  Reader(Json& message, std::string_view type, const Limits& limits)
      : message_(message), type_(type), limits_(limits) {}

  bool failed() const { return failed_; }
  std::string& error() { return error_; }
  const Limits& limits() const { return limits_; }

  void fail(std::string message) {
    if (failed_) return;
    failed_ = true;
    error_ = std::move(message);
  }

  // Null counts as absent: JavaScript clients send `"seat": null` to mean "no seat".
  Json* find(const char* field) {
    const auto it = message_.find(field);
    if (it == message_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  // A string of 1..max_identifier_bytes: room ids, game kinds, strategies.
  std::string required_identifier(const char* field) {
    Json* value = find(field);
    if (value == nullptr || !value->is_string()) {
      fail(std::string(type_) + " needs a string \"" + field + "\"");
      return {};
    }
    return take_identifier(field, *value);
  }

  std::optional<std::string> optional_identifier(const char* field) {
    Json* value = find(field);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) {
      fail("\"" + std::string(field) + "\" must be a string");
      return std::nullopt;
    }
    return take_identifier(field, *value);
  }

  std::int64_t required_integer(const char* field, std::int64_t low, std::int64_t high) {
    if (find(field) == nullptr) {
      fail(std::string(type_) + " needs an integer \"" + field + "\"");
      return low;
    }
    return optional_integer(field, low, high).value_or(low);
  }

  std::optional<std::int64_t> optional_integer(const char* field, std::int64_t low,
                                               std::int64_t high) {
    const Json* value = find(field);
    if (value == nullptr) return std::nullopt;
    std::optional<std::int64_t> number = integer_in_range(*value, low, high);
    if (!number) {
      fail("\"" + std::string(field) + "\" must be an integer between " + std::to_string(low) +
           " and " + std::to_string(high));
    }
    return number;
  }

  int required_seat(const char* field) {
    return static_cast<int>(required_integer(field, 0, limits_.max_seats - 1));
  }

  std::optional<int> optional_seat(const char* field) {
    const auto seat = optional_integer(field, 0, limits_.max_seats - 1);
    if (!seat) return std::nullopt;
    return static_cast<int>(*seat);
  }

  std::optional<bool> optional_bool(const char* field) {
    const Json* value = find(field);
    if (value == nullptr) return std::nullopt;
    if (!value->is_boolean()) {
      fail("\"" + std::string(field) + "\" must be true or false");
      return std::nullopt;
    }
    return value->get<bool>();
  }

  Json required_object(const char* field) {
    Json* value = find(field);
    if (value == nullptr || !value->is_object()) {
      fail(std::string(type_) + " needs an object \"" + field + "\"");
      return Json::object();
    }
    return std::move(*value);
  }

  Json optional_object(const char* field) {
    Json* value = find(field);
    if (value == nullptr) return Json::object();
    if (!value->is_object()) {
      fail("\"" + std::string(field) + "\" must be an object");
      return Json::object();
    }
    return std::move(*value);
  }

  // A string moved out of the message, or nullopt (and a failure) when not a string.
  std::optional<std::string> optional_string(const char* field) {
    Json* value = find(field);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) {
      fail("\"" + std::string(field) + "\" must be a string");
      return std::nullopt;
    }
    return std::move(value->get_ref<std::string&>());
  }

 private:
  std::string take_identifier(const char* field, Json& value) {
    auto& text = value.get_ref<std::string&>();
    if (text.empty() || text.size() > limits_.max_identifier_bytes) {
      fail("\"" + std::string(field) + "\" must be 1 to " +
           std::to_string(limits_.max_identifier_bytes) + " bytes");
      return {};
    }
    return std::move(text);
  }

  Json& message_;
  std::string_view type_;
  const Limits& limits_;
  bool failed_ = false;
  std::string error_;
};

Command decode_hello(Reader& reader) {
  Hello hello;
  if (std::optional<std::string> raw = reader.optional_string("name")) {
    std::string error;
    hello.name = normalize_name(*raw, reader.limits(), error);
    if (!hello.name) reader.fail(std::move(error));
  }
  if (Json* token = reader.find("token")) {
    const std::size_t max = reader.limits().max_token_bytes;
    // The value is a secret: the message describes it without quoting it.
    if (!token->is_string() || token->get_ref<const std::string&>().empty() ||
        token->get_ref<const std::string&>().size() > max) {
      reader.fail("\"token\" must be a string of 1 to " + std::to_string(max) + " bytes");
    } else {
      hello.token = std::move(token->get_ref<std::string&>());
    }
  }
  hello.protocol = static_cast<int>(reader.required_integer("protocol", 0, kMaxInt));
  if (!reader.failed() && !hello.name && !hello.token) {
    reader.fail(R"(hello needs a "name" (or a "token" to resume))");
  }
  return hello;
}

Command decode_rename(Reader& reader) {
  Rename rename;
  std::optional<std::string> raw = reader.optional_string("name");
  if (!raw) {
    reader.fail(R"(rename needs a string "name")");
    return rename;
  }
  // The same rules as hello's name, and the same message when one is broken.
  std::string error;
  if (std::optional<std::string> name = normalize_name(*raw, reader.limits(), error)) {
    rename.name = std::move(*name);
  } else {
    reader.fail(std::move(error));
  }
  return rename;
}

Command decode_revoke_token(Reader& /*reader*/) { return RevokeToken{}; }

Command decode_list_games(Reader& /*reader*/) { return ListGames{}; }
// The statuses list_rooms can filter on: those of protocol/encode.h's RoomStatus.
constexpr std::string_view kRoomStatuses[] = {"waiting", "playing", "finished", "frozen", "paused"};

Command decode_list_rooms(Reader& reader) {
  ListRooms list;
  list.kind = reader.optional_identifier("kind");
  list.status = reader.optional_identifier("status");
  if (list.status && std::find(std::begin(kRoomStatuses), std::end(kRoomStatuses), *list.status) ==
                         std::end(kRoomStatuses)) {
    reader.fail(R"("status" must be one of "waiting", "playing", "finished", "frozen", "paused")");
  }
  list.free_seat = reader.optional_bool("free_seat").value_or(false);
  if (const auto limit = reader.optional_integer("limit", 1, kMaxRoomsPerPage)) {
    list.limit = static_cast<int>(*limit);
  }
  list.after = reader.optional_identifier("after");
  return list;
}

Command decode_subscribe_lobby(Reader& reader) {
  return SubscribeLobby{reader.optional_identifier("kind")};
}
Command decode_unsubscribe_lobby(Reader& /*reader*/) { return UnsubscribeLobby{}; }

Command decode_cancel_quick_play(Reader& /*reader*/) { return CancelQuickPlay{}; }
Command decode_ping(Reader& /*reader*/) { return Ping{}; }

// The table a create_room or quick_play asks for: a kind, a seat count, options.
template <class TableRequest>
Command decode_table_request(Reader& reader) {
  TableRequest request;
  request.kind = reader.required_identifier("kind");
  if (const auto seats = reader.optional_integer("seats", 1, reader.limits().max_seats)) {
    request.seats = static_cast<int>(*seats);
  }
  request.options = reader.optional_object("options");
  request.rated = reader.optional_bool("rated").value_or(false);
  return request;
}

Command decode_join_room(Reader& reader) {
  JoinRoom join;
  join.room = reader.required_identifier("room");
  join.seat = reader.optional_seat("seat");
  return join;
}

Command decode_watch_room(Reader& reader) { return WatchRoom{reader.required_identifier("room")}; }
Command decode_leave_room(Reader& reader) { return LeaveRoom{reader.required_identifier("room")}; }
Command decode_start(Reader& reader) { return Start{reader.required_identifier("room")}; }
Command decode_legal_moves(Reader& reader) {
  return LegalMoves{reader.required_identifier("room")};
}

Command decode_add_bot(Reader& reader) {
  AddBot add;
  add.room = reader.required_identifier("room");
  add.seat = reader.required_seat("seat");
  if (std::optional<std::string> strategy = reader.optional_identifier("strategy")) {
    add.strategy = std::move(*strategy);
  }
  return add;
}

Command decode_chat(Reader& reader) {
  Chat chat;
  chat.room = reader.required_identifier("room");
  Json* text = reader.find("text");
  if (text == nullptr || !text->is_string()) {
    reader.fail("chat needs a string \"text\"");
    return chat;
  }
  const std::string_view trimmed = trim_ascii_whitespace(text->get_ref<const std::string&>());
  const std::size_t max = reader.limits().max_chat_bytes;
  if (trimmed.empty() || trimmed.size() > max) {
    reader.fail("\"text\" must be 1 to " + std::to_string(max) + " bytes after trimming spaces");
  } else if (has_control_characters(trimmed, "\t\n")) {
    reader.fail("\"text\" must not contain control characters other than tab and newline");
  } else {
    chat.text = std::string(trimmed);
  }
  return chat;
}

Command decode_move(Reader& reader) {
  Move move;
  move.room = reader.required_identifier("room");
  move.move = reader.required_object("move");
  move.seq = reader.optional_integer("seq", 0, kMaxInt64);
  return move;
}

Command decode_get_replay(Reader& reader) {
  GetReplay replay;
  replay.room = reader.required_identifier("room");
  replay.seat = reader.optional_seat("seat");
  if (auto game = reader.optional_integer("game", 1, 1'000'000))
    replay.game = static_cast<int>(*game);
  return replay;
}

Command decode_remove_seat(Reader& reader) {
  RemoveSeat remove;
  remove.room = reader.required_identifier("room");
  remove.seat = reader.required_seat("seat");
  return remove;
}
Command decode_lock_room(Reader& reader) { return LockRoom{reader.required_identifier("room")}; }
Command decode_unlock_room(Reader& reader) {
  return UnlockRoom{reader.required_identifier("room")};
}
Command decode_mute(Reader& reader) { return Mute{reader.required_identifier("player")}; }
Command decode_unmute(Reader& reader) { return Unmute{reader.required_identifier("player")}; }

struct Decoder {
  std::string_view type;
  Command (*decode)(Reader&);
};

constexpr Decoder kDecoders[] = {
    {"hello", decode_hello},
    {"list_games", decode_list_games},
    {"list_rooms", decode_list_rooms},
    {"create_room", decode_table_request<CreateRoom>},
    {"join_room", decode_join_room},
    {"watch_room", decode_watch_room},
    {"leave_room", decode_leave_room},
    {"add_bot", decode_add_bot},
    {"start", decode_start},
    {"chat", decode_chat},
    {"ping", decode_ping},
    {"move", decode_move},
    {"legal_moves", decode_legal_moves},
    {"get_replay", decode_get_replay},
    {"subscribe_lobby", decode_subscribe_lobby},
    {"unsubscribe_lobby", decode_unsubscribe_lobby},
    {"quick_play", decode_table_request<QuickPlay>},
    {"cancel_quick_play", decode_cancel_quick_play},
    {"rename", decode_rename},
    {"revoke_token", decode_revoke_token},
    {"remove_seat", decode_remove_seat},
    {"lock_room", decode_lock_room},
    {"unlock_room", decode_unlock_room},
    {"mute", decode_mute},
    {"unmute", decode_unmute},
};

DecodeResult decode_message(Json& message, const Limits& limits) {
  if (!message.is_object()) {
    return DecodeError{ErrorCode::kBadRequest, "a message must be a JSON object", nullptr};
  }
  std::optional<Json> read = read_id(message, limits);
  if (!read) {
    return DecodeError{ErrorCode::kBadRequest,
                       "\"id\" must be an integer or a string of at most " +
                           std::to_string(limits.max_identifier_bytes) + " bytes",
                       nullptr};
  }
  Json id = std::move(*read);
  const auto type_it = message.find("type");
  if (type_it == message.end() || !type_it->is_string()) {
    return DecodeError{ErrorCode::kBadRequest, "a message needs a string \"type\"", std::move(id)};
  }
  const std::string_view type = type_it->get_ref<const std::string&>();
  for (const Decoder& decoder : kDecoders) {
    if (decoder.type != type) continue;
    Reader reader(message, type, limits);
    Command command = decoder.decode(reader);
    if (reader.failed()) {
      return DecodeError{ErrorCode::kBadRequest, std::move(reader.error()), std::move(id)};
    }
    return Request{std::move(id), std::move(command)};
  }
  return DecodeError{ErrorCode::kBadRequest, "unknown message type " + quote_client_text(type),
                     std::move(id)};
}

}  // namespace

std::optional<std::string> normalize_name(std::string_view raw, const Limits& limits,
                                          std::string& error) {
  if (!is_valid_utf8(raw)) {
    error = "\"name\" must be valid UTF-8";
    return std::nullopt;
  }
  const std::string_view name = trim_ascii_whitespace(raw);
  if (name.empty() || name.size() > limits.max_name_bytes) {
    error = "\"name\" must be 1 to " + std::to_string(limits.max_name_bytes) +
            " bytes after trimming spaces";
    return std::nullopt;
  }
  if (has_control_characters(name)) {
    error = "\"name\" must not contain control characters";
    return std::nullopt;
  }
  return std::string(name);
}

DecodeResult decode_request(std::string_view frame, const Limits& limits) {
  if (auto move = decode_plain_move(frame, limits)) return std::move(*move);
  return decode_request_general(frame, limits);
}

DecodeResult decode_request_general(std::string_view frame, const Limits& limits) {
  auto parsed = parse_bounded_json(frame, limits);
  if (auto* failure = std::get_if<JsonParseFailure>(&parsed)) {
    // Past a limit the frame was valid JSON so far, so an id read before that point is
    // the client's; a frame that is not JSON at all gets no `re`.
    const bool syntax = failure->kind == JsonParseFailure::Kind::kSyntax ||
                        failure->kind == JsonParseFailure::Kind::kInvalidUtf8 ||
                        failure->kind == JsonParseFailure::Kind::kEmpty;
    Json id = syntax ? Json() : read_id(failure->partial, limits).value_or(Json());
    return DecodeError{ErrorCode::kBadRequest, std::move(failure->message), std::move(id)};
  }
  try {
    return decode_message(std::get<Json>(parsed), limits);
  } catch (const Json::exception&) {
    // Every access above is type-checked first, so this is a bug of ours, not the client's.
    return DecodeError{ErrorCode::kInternalError, "the request could not be decoded", nullptr};
  }
}

}  // namespace parlor::protocol
