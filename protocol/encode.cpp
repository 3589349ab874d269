#include "protocol/encode.h"

#include <utility>

#include "games/core/json_text.h"
#include "protocol/text.h"

namespace parlor::protocol {
namespace {

// A reply: {"type":TYPE} plus "re" when the request had an id.
Json reply(const char* type, const Json& re) {
  Json message = {{"type", type}};
  attach_re(message, re);
  return message;
}

// The same bytes as dumping Json(text); valid UTF-8 (all that the server names things with)
// is written without building that Json value.
void append_string(std::string& out, std::string_view text) {
  if (is_valid_utf8(text)) {
    json_text::string(out, text);
  } else {
    out += to_wire(Json(std::string(text)));
  }
}

}  // namespace

std::string_view wire_name(RoomStatus status) {
  switch (status) {
    case RoomStatus::kWaiting:
      return "waiting";
    case RoomStatus::kPlaying:
      return "playing";
    case RoomStatus::kFinished:
      return "finished";
    case RoomStatus::kFrozen:
      return "frozen";
    case RoomStatus::kPaused:
      return "paused";
  }
  return "waiting";  // only through a cast of an out-of-range integer
}

Json room_summary_json(const RoomSummary& room) {
  Json seats = Json::array();
  for (std::size_t index = 0; index < room.seats.size(); ++index) {
    const std::optional<SeatSummary>& seat = room.seats[index];
    if (!seat) {
      seats.push_back(nullptr);
      continue;
    }
    seats.push_back({{"seat", index},
                     {"player", seat->player},
                     {"name", seat->name},
                     {"bot", seat->bot},
                     {"connected", seat->connected}});
  }
  Json message = {{"type", "room"},
                  {"room", room.room},
                  {"kind", room.kind},
                  {"status", std::string(wire_name(room.status))},
                  {"seats", std::move(seats)},
                  {"spectators", room.spectators}};
  if (!room.options.is_null()) message["options"] = room.options;
  if (room.locked) message["locked"] = true;
  if (!room.host.empty()) message["host"] = room.host;
  if (!room.node.empty()) message["node"] = room.node;
  return message;
}

std::string to_wire(const Json& message) {
  return message.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void attach_re(Json& message, const Json& re) {
  if (!re.is_null()) message["re"] = re;
}

std::string encode_welcome(const Json& re, std::string_view player, std::string_view token,
                           int protocol, bool dev, std::string_view node) {
  Json message = reply("welcome", re);
  message["player"] = std::string(player);
  message["token"] = std::string(token);
  message["protocol"] = protocol;
  if (dev) message["dev"] = true;
  if (!node.empty()) message["node"] = std::string(node);
  return to_wire(message);
}

std::string encode_error(const Json& re, ErrorCode code, std::string_view message) {
  return encode_error(re, wire_name(code), message);
}

std::string encode_error(const Json& re, std::string_view code, std::string_view message) {
  Json error = reply("error", re);
  error["code"] = std::string(code);
  error["message"] = std::string(message);
  return to_wire(error);
}

std::string encode_room_moved(const Json& re, std::string_view room, std::string_view node,
                              std::string_view message) {
  Json error = reply("error", re);
  error["code"] = std::string(wire_name(ErrorCode::kRoomMoved));
  error["room"] = std::string(room);
  if (!node.empty()) error["node"] = std::string(node);
  error["message"] = std::string(message);
  return to_wire(error);
}

std::string encode_error(const DecodeError& error) {
  return encode_error(error.id, error.code, error.message);
}

std::string encode_games(const Json& re, const std::vector<GameInfo>& games) {
  Json list = Json::array();
  for (const GameInfo& info : games) list.push_back(game_info_json(info));
  Json message = reply("games", re);
  message["games"] = std::move(list);
  return to_wire(message);
}

std::string encode_rooms(const Json& re, const std::vector<RoomSummary>& rooms) {
  Json list = Json::array();
  for (const RoomSummary& room : rooms) list.push_back(room_summary_json(room));
  Json message = reply("rooms", re);
  message["rooms"] = std::move(list);
  return to_wire(message);
}

std::string encode_room_created(const Json& re, std::string_view room) {
  Json message = reply("room_created", re);
  message["room"] = std::string(room);
  return to_wire(message);
}

std::string encode_joined(const Json& re, std::string_view room, int seat) {
  Json message = reply("joined", re);
  message["room"] = std::string(room);
  message["seat"] = seat;
  return to_wire(message);
}

std::string encode_watching(const Json& re, std::string_view room) {
  Json message = reply("watching", re);
  message["room"] = std::string(room);
  return to_wire(message);
}

std::string encode_left(const Json& re, std::string_view room) {
  Json message = reply("left", re);
  message["room"] = std::string(room);
  return to_wire(message);
}

// Sent for every accepted move, so written directly: the same bytes as the Json object would
// dump to (keys in order: re, seq, type), without building it.
std::string encode_ok(const Json& re, std::optional<std::int64_t> seq) {
  std::string out = "{";
  if (!re.is_null()) {
    out += "\"re\":";
    out += to_wire(re);
    out += ',';
  }
  if (seq) {
    out += "\"seq\":";
    out += std::to_string(*seq);
    out += ',';
  }
  out += R"("type":"ok"})";
  return out;
}

std::string encode_pong(const Json& re) { return to_wire(reply("pong", re)); }

std::string encode_legal_moves(const Json& re, std::string_view room, const Json& moves) {
  Json message = reply("legal_moves", re);
  message["room"] = std::string(room);
  message["moves"] = moves;
  return to_wire(message);
}

std::string encode_room(const RoomSummary& room, std::optional<int> you) {
  return RoomPush(room).for_viewer(you);
}

// Written as text, keys in dump order: rooms change on every join, start and end of a game,
// and building the Json value took longer than the rest of a game's start.
RoomPush::RoomPush(const RoomSummary& room) {
  namespace jt = json_text;
  std::string& out = head_;
  out.reserve(160 + 96 * room.seats.size());
  out += '{';
  if (!room.host.empty()) {
    jt::key(out, "host");
    append_string(out, room.host);
    out += ',';
  }
  jt::key(out, "kind");
  append_string(out, room.kind);
  if (room.locked) {
    out += ',';
    jt::key(out, "locked");
    jt::boolean(out, true);
  }
  if (!room.node.empty()) {
    out += ',';
    jt::key(out, "node");
    append_string(out, room.node);
  }
  if (!room.options.is_null()) {
    out += ',';
    jt::key(out, "options");
    out += to_wire(room.options);
  }
  out += ',';
  jt::key(out, "room");
  append_string(out, room.room);
  out += ',';
  jt::key(out, "seats");
  out += '[';
  for (std::size_t index = 0; index < room.seats.size(); ++index) {
    if (index > 0) out += ',';
    const std::optional<SeatSummary>& seat = room.seats[index];
    if (!seat) {
      jt::null(out);
      continue;
    }
    out += '{';
    jt::key(out, "bot");
    jt::boolean(out, seat->bot);
    out += ',';
    jt::key(out, "connected");
    jt::boolean(out, seat->connected);
    out += ',';
    jt::key(out, "name");
    append_string(out, seat->name);
    out += ',';
    jt::key(out, "player");
    append_string(out, seat->player);
    out += ',';
    jt::key(out, "seat");
    jt::integer(out, static_cast<std::int64_t>(index));
    out += '}';
  }
  out += "],";
  jt::key(out, "spectators");
  jt::integer(out, room.spectators);
  out += ',';
  jt::key(out, "status");
  jt::string(out, wire_name(room.status));
  out += R"(,"type":"room")";  // the closing brace comes with "you"
}

std::string RoomPush::for_viewer(std::optional<int> you) const {
  std::string out;
  out.reserve(head_.size() + 16);
  out += head_;
  out += ",\"you\":";
  out += you ? std::to_string(*you) : std::string("null");
  out += '}';
  return out;
}

std::string encode_chat(std::string_view room, std::string_view player, std::string_view name,
                        std::string_view text) {
  const Json message = {{"type", "chat"},
                        {"room", std::string(room)},
                        {"player", std::string(player)},
                        {"name", std::string(name)},
                        {"text", std::string(text)}};
  return to_wire(message);
}

std::string encode_seat_removed(std::string_view room, int seat, std::string_view reason) {
  const Json message = {{"type", "seat_removed"},
                        {"room", std::string(room)},
                        {"seat", seat},
                        {"reason", std::string(reason)}};
  return to_wire(message);
}

std::string encode_room_closed(std::string_view room, std::string_view reason) {
  const Json message = {
      {"type", "room_closed"}, {"room", std::string(room)}, {"reason", std::string(reason)}};
  return to_wire(message);
}

std::string encode_chat_history(std::string_view room, std::span<const ChatLine> lines) {
  Json messages = Json::array();
  for (const ChatLine& line : lines) {
    messages.push_back(
        {{"player", line.player}, {"name", line.name}, {"text", line.text}, {"at", line.at_ms}});
  }
  return to_wire(
      {{"type", "chat_history"}, {"room", std::string(room)}, {"messages", std::move(messages)}});
}

std::string encode_event_history(std::string_view room, int game, std::int64_t seq,
                                 std::span<const EventEntry> entries) {
  std::size_t size = 64 + room.size();
  for (const EventEntry& entry : entries) size += entry.events.size() + 32;
  std::string out = R"({"type":"event_history","room":)";
  out.reserve(size);
  append_string(out, room);
  out += R"(,"game":)";
  out += std::to_string(game);
  out += R"(,"seq":)";
  out += std::to_string(seq);
  out += R"(,"entries":[)";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ',';
    out += R"({"seq":)";
    out += std::to_string(entries[i].seq);
    out += R"(,"events":)";
    out += entries[i].events;
    out += '}';
  }
  out += "]}";
  return out;
}

std::string encode_game_over(std::string_view room, const Json& result) {
  std::string out = R"({"type":"game_over","room":)";
  append_string(out, room);
  out += R"(,"result":)";
  out += to_wire(result);
  out += '}';
  return out;
}

StateFrameParts state_frame_parts(std::string_view room, std::int64_t seq,
                                  std::span<const Seat> to_act, std::string_view events,
                                  std::optional<TurnDeadline> deadline) {
  StateFrameParts parts;
  parts.head.reserve(48 + room.size());
  parts.head = R"({"type":"state","room":)";
  append_string(parts.head, room);
  parts.head += R"(,"seq":)";
  parts.head += std::to_string(seq);
  parts.head += R"(,"view":)";
  parts.middle = R"(,"to_act":[)";
  for (std::size_t i = 0; i < to_act.size(); ++i) {
    if (i > 0) parts.middle += ',';
    json_text::integer(parts.middle, to_act[i]);
  }
  parts.middle += R"(],"prompt":)";
  parts.tail.reserve(events.size() + 64);
  parts.tail = R"(,"events":)";
  parts.tail += events;
  if (deadline) {
    parts.tail += R"(,"deadline":)";
    parts.tail += std::to_string(deadline->at_unix_ms);
    parts.tail += R"(,"deadline_ms":)";
    parts.tail += std::to_string(deadline->remaining_ms);
  }
  parts.tail += '}';
  return parts;
}

std::string encode_state(std::string_view room, std::int64_t seq, const Json& view,
                         std::span<const Seat> to_act, const Json& prompt, const Json& events,
                         std::optional<TurnDeadline> deadline) {
  const StateFrameParts parts = state_frame_parts(room, seq, to_act, to_wire(events), deadline);
  return parts.head + to_wire(view) + parts.middle + to_wire(prompt) + parts.tail;
}

}  // namespace parlor::protocol
