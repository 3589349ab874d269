#include "protocol/encode.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/text.h"

namespace parlor::protocol {
namespace {

// Every encoder's output must be one JSON object; tests read it back field by field.
Json wire(const std::string& text) {
  EXPECT_TRUE(is_valid_utf8(text)) << text;
  Json message = Json::parse(text);
  EXPECT_TRUE(message.is_object()) << text;
  return message;
}

const Json kNoId;  // a request without id

TEST(EncodeReplies, ReAppearsExactlyWhenTheRequestHadAnId) {
  EXPECT_EQ(wire(encode_pong(kNoId)), Json({{"type", "pong"}}));
  EXPECT_EQ(wire(encode_pong(Json(7))), Json({{"type", "pong"}, {"re", 7}}));
  EXPECT_EQ(wire(encode_pong(Json("p-1"))), Json({{"type", "pong"}, {"re", "p-1"}}));
  EXPECT_EQ(wire(encode_pong(Json(UINT64_MAX)))["re"], UINT64_MAX);

  Json message = {{"type", "x"}};
  attach_re(message, kNoId);
  EXPECT_FALSE(message.contains("re"));
  attach_re(message, Json(-2));
  EXPECT_EQ(message["re"], -2);
}

TEST(EncodeReplies, Welcome) {
  EXPECT_EQ(
      wire(encode_welcome(Json(1), "p42", "tok", 1)),
      Json({{"type", "welcome"}, {"re", 1}, {"player", "p42"}, {"token", "tok"}, {"protocol", 1}}));
  // A server in development mode says so; otherwise the field is absent, as before.
  EXPECT_EQ(wire(encode_welcome(Json(1), "p42", "tok", 1, /*dev=*/true))["dev"], true);
  // In cluster mode the welcome names the node holding the connection; else no "node".
  EXPECT_EQ(wire(encode_welcome(Json(1), "p42", "tok", 1, false, "node-3"))["node"], "node-3");
  EXPECT_FALSE(wire(encode_welcome(Json(1), "p42", "tok", 1)).contains("node"));
}

TEST(EncodeReplies, ErrorWithProtocolCodeOrEngineCode) {
  EXPECT_EQ(wire(encode_error(Json("m1"), ErrorCode::kNotYourTurn, "seat 2 is to act")),
            Json({{"type", "error"},
                  {"re", "m1"},
                  {"code", "not_your_turn"},
                  {"message", "seat 2 is to act"}}));
  EXPECT_EQ(wire(encode_error(kNoId, "must_include_lowest", "the first play must hold 3D")),
            Json({{"type", "error"},
                  {"code", "must_include_lowest"},
                  {"message", "the first play must hold 3D"}}));
  const DecodeError decode_error{ErrorCode::kBadRequest, "unknown message type \"x\"", Json(3)};
  EXPECT_EQ(wire(encode_error(decode_error)), Json({{"type", "error"},
                                                    {"re", 3},
                                                    {"code", "bad_request"},
                                                    {"message", "unknown message type \"x\""}}));
}

TEST(EncodeReplies, Games) {
  GameInfo info;
  info.kind = "bigtwo";
  info.name = "Big Two";
  info.min_seats = 2;
  info.max_seats = 4;
  info.options = {OptionSpec::integer("target", 10, 1, 100, "points to win")};
  const Json message = wire(encode_games(Json(1), {info}));
  EXPECT_EQ(message["type"], "games");
  EXPECT_EQ(message["re"], 1);
  ASSERT_EQ(message["games"].size(), 1u);
  EXPECT_EQ(message["games"][0], game_info_json(info));
  EXPECT_EQ(message["games"][0]["kind"], "bigtwo");
  EXPECT_EQ(message["games"][0]["name"], "Big Two");
  EXPECT_EQ(message["games"][0]["min_seats"], 2);
  EXPECT_EQ(message["games"][0]["max_seats"], 4);
  EXPECT_TRUE(message["games"][0]["options"].contains("target"));
  EXPECT_EQ(wire(encode_games(kNoId, {}))["games"], Json::array());
}

RoomSummary sample_room() {
  RoomSummary room;
  room.room = "r7";
  room.kind = "bigtwo";
  room.status = RoomStatus::kPlaying;
  room.seats = {SeatSummary{"p1", "alice", false, true}, std::nullopt,
                SeatSummary{"b1", "Bot", true, true}, SeatSummary{"p2", "bob", false, false}};
  room.spectators = 2;
  room.options = {{"target", 10}};
  return room;
}

TEST(EncodeReplies, Rooms) {
  const Json message = wire(encode_rooms(Json("l"), {sample_room()}));
  EXPECT_EQ(message["type"], "rooms");
  EXPECT_EQ(message["re"], "l");
  ASSERT_EQ(message["rooms"].size(), 1u);
  const Json& room = message["rooms"][0];
  EXPECT_EQ(room["type"], "room");
  EXPECT_EQ(room["room"], "r7");
  EXPECT_EQ(room["kind"], "bigtwo");
  EXPECT_EQ(room["status"], "playing");
  EXPECT_EQ(room["spectators"], 2);
  EXPECT_EQ(room["options"], Json({{"target", 10}}));
  EXPECT_FALSE(room.contains("you"));  // only in the push
  ASSERT_EQ(room["seats"].size(), 4u);
  EXPECT_EQ(
      room["seats"][0],
      Json(
          {{"seat", 0}, {"player", "p1"}, {"name", "alice"}, {"bot", false}, {"connected", true}}));
  EXPECT_TRUE(room["seats"][1].is_null());
  EXPECT_EQ(room["seats"][2]["seat"], 2);
  EXPECT_EQ(room["seats"][2]["bot"], true);
  EXPECT_EQ(room["seats"][3]["connected"], false);
}

TEST(EncodeReplies, LobbyRepliesCarryRoomAndSeat) {
  EXPECT_EQ(wire(encode_room_created(Json(1), "r1")),
            Json({{"type", "room_created"}, {"re", 1}, {"room", "r1"}}));
  EXPECT_EQ(wire(encode_joined(Json(2), "r1", 3)),
            Json({{"type", "joined"}, {"re", 2}, {"room", "r1"}, {"seat", 3}}));
  EXPECT_EQ(wire(encode_watching(Json(3), "r1")),
            Json({{"type", "watching"}, {"re", 3}, {"room", "r1"}}));
  EXPECT_EQ(wire(encode_left(kNoId, "r1")), Json({{"type", "left"}, {"room", "r1"}}));
}

TEST(EncodeReplies, OkAndMoveOk) {
  EXPECT_EQ(wire(encode_ok(Json(4))), Json({{"type", "ok"}, {"re", 4}}));
  EXPECT_EQ(wire(encode_ok(Json(5), 12)), Json({{"type", "ok"}, {"re", 5}, {"seq", 12}}));
  // Written without a Json object, yet byte for byte what dumping one would give.
  for (const Json& re : {Json(), Json(7), Json(-3), Json("m-1"), Json("\u00e9\"\\"), Json(1.5),
                         Json(std::int64_t{9007199254740993})}) {
    for (const std::optional<std::int64_t> seq :
         {std::optional<std::int64_t>{}, std::optional<std::int64_t>{0},
          std::optional<std::int64_t>{-1}, std::optional<std::int64_t>{INT64_MAX}}) {
      Json expected = {{"type", "ok"}};
      if (!re.is_null()) expected["re"] = re;
      if (seq) expected["seq"] = *seq;
      EXPECT_EQ(encode_ok(re, seq), to_wire(expected)) << re.dump();
    }
  }
}

TEST(EncodeReplies, LegalMoves) {
  const Json moves = {{{"action", "pass"}}, {{"action", "play"}, {"cards", {"3D"}}}};
  EXPECT_EQ(wire(encode_legal_moves(Json(6), "r1", moves)),
            Json({{"type", "legal_moves"}, {"re", 6}, {"room", "r1"}, {"moves", moves}}));
}

TEST(EncodePushes, RoomPushHasYou) {
  const Json seated = wire(encode_room(sample_room(), 2));
  EXPECT_EQ(seated["type"], "room");
  EXPECT_EQ(seated["you"], 2);
  EXPECT_FALSE(seated.contains("re"));
  EXPECT_EQ(seated["seats"][0]["name"], "alice");
  const Json watching = wire(encode_room(sample_room(), std::nullopt));
  ASSERT_TRUE(watching.contains("you"));
  EXPECT_TRUE(watching["you"].is_null());
}

// Each member's room push is spliced from one serialization: it must still be exactly the
// text nlohmann would write for the whole message (keys sorted, "you" last).
TEST(EncodePushes, RoomPushPerViewerIsTheDumpOfTheWholeMessage) {
  RoomSummary with_options = sample_room();
  with_options.options = Json{{"variant", "taiwanese"}, {"zeta", {1, 2}}};
  with_options.seats[0]->name = "al \"ice\"\n\\";  // escapes
  with_options.status = RoomStatus::kFrozen;
  RoomSummary without_options = sample_room();
  without_options.options = Json();
  // A host's room, locked: the two keys that come before "kind" and after it.
  RoomSummary hosted = sample_room();
  hosted.host = "p1";
  hosted.locked = true;
  // A cluster node's room names its node, between "locked" and "options".
  RoomSummary on_a_node = hosted;
  on_a_node.node = "node-2";
  for (const RoomSummary& room : {with_options, without_options, hosted, on_a_node}) {
    const RoomPush push(room);
    for (const std::optional<int> you :
         {std::optional<int>(0), std::optional<int>(3), std::optional<int>()}) {
      const std::string text = push.for_viewer(you);
      Json expected = room_summary_json(room);
      expected["you"] = you ? Json(*you) : Json(nullptr);
      EXPECT_EQ(text, to_wire(expected));
      EXPECT_EQ(text, Json::parse(text).dump());
      EXPECT_EQ(text, encode_room(room, you));
      const Json message = wire(text);
      EXPECT_EQ(message["you"], you ? Json(*you) : Json(nullptr));
      EXPECT_EQ(message.contains("options"), !room.options.is_null());
      EXPECT_EQ(message.contains("locked"), room.locked);
      EXPECT_EQ(message.value("host", ""), room.host);
      EXPECT_EQ(message.value("node", ""), room.node);
    }
  }
}

TEST(EncodePushes, Chat) {
  EXPECT_EQ(wire(encode_chat("r1", "p1", "alice", "gg \"all\"\n")),
            Json({{"type", "chat"},
                  {"room", "r1"},
                  {"player", "p1"},
                  {"name", "alice"},
                  {"text", "gg \"all\"\n"}}));
}

TEST(EncodePushes, GameOver) {
  const Json result = {{"scores", {3, -1}}, {"winners", {0}}, {"detail", {{"hands", 4}}}};
  EXPECT_EQ(wire(encode_game_over("r1", result)),
            Json({{"type", "game_over"}, {"room", "r1"}, {"result", result}}));
}

TEST(EncodePushes, StateForASeatToAct) {
  const Json view = {{"hand", {"3D", "AS"}}, {"counts", {13, 12}}, {"deep", {{"a", {{"b", 1}}}}}};
  const Json prompt = {{"actions", {"play", "pass"}}, {"legal", {{{"action", "pass"}}}}};
  const Json events = {{{"seat", 1}, {"played", {"4C"}}}};
  const std::string text = encode_state("r1", 41, view, std::vector<Seat>{0}, prompt, events,
                                        TurnDeadline{1'790'000'000'000, 29'500});
  const Json message = wire(text);
  EXPECT_EQ(message, Json({{"type", "state"},
                           {"room", "r1"},
                           {"seq", 41},
                           {"view", view},
                           {"to_act", {0}},
                           {"prompt", prompt},
                           {"events", events},
                           {"deadline", 1'790'000'000'000},
                           {"deadline_ms", 29'500}}));
  EXPECT_FALSE(message.contains("re"));
  // Starts with the type so a client can dispatch on a prefix, and is compact.
  EXPECT_EQ(text.rfind(R"({"type":"state","room":"r1","seq":41,"view":{)", 0), 0u);
  EXPECT_EQ(text.find(' '), std::string::npos);
}

// The room is written without a Json value, yet the bytes are those of dumping one, escapes
// and invalid UTF-8 (replaced) included.
TEST(EncodePushes, StateRoomNameBytesMatchTheJsonDump) {
  for (const std::string room :
       {"r1", "", "with \"quotes\" and \\", "tab\tnew\nline\x01\x1f",
        "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x82\xA1", "bad\xFF", "cut\xC3"}) {
    const std::string text =
        encode_state(room, 3, Json::object(), std::vector<Seat>{2}, nullptr, Json::array());
    const std::string expected = R"({"type":"state","room":)" + to_wire(Json(room)) +
                                 R"(,"seq":3,"view":{},"to_act":[2],"prompt":null,"events":[]})";
    EXPECT_EQ(text, expected) << room;
  }
}

TEST(EncodePushes, StateForASpectatorWithoutTimer) {
  const Json message =
      wire(encode_state("r1", 0, Json::object(), std::vector<Seat>{1, 2}, nullptr, Json::array()));
  ASSERT_TRUE(message.contains("prompt"));
  EXPECT_TRUE(message["prompt"].is_null());
  EXPECT_EQ(message["to_act"], Json::array({1, 2}));
  EXPECT_EQ(message["events"], Json::array());
  EXPECT_FALSE(message.contains("deadline_ms"));
  EXPECT_EQ(message["seq"], 0);
}

// The seats to act are written as text: the same bytes dump() writes for them, in place.
TEST(EncodePushes, StateToActIsWrittenAsDumpWritesIt) {
  const Json events = {{{"type", "play"}, {"seat", 3}, {"cards", {"7D", "7H"}}}};
  for (const std::vector<Seat>& to_act :
       {std::vector<Seat>{}, std::vector<Seat>{3}, std::vector<Seat>{0, 1, 2, 3}}) {
    const std::string text = encode_state("r\"9", 12, Json{{"b", 1}, {"a", nullptr}}, to_act,
                                          nullptr, events, TurnDeadline{1'790'000'000'123, 4'200});
    EXPECT_NE(text.find(R"(,"to_act":)" + Json(to_act).dump() + R"(,"prompt":null,)"),
              std::string::npos)
        << text;
    EXPECT_EQ(wire(text)["to_act"], Json(to_act));
  }
}

TEST(EncodeSafety, InvalidUtf8NeverThrowsAndIsReplaced) {
  const std::string bad_name =
      "ali\xFF"
      "ce";
  const std::string bad_text = "gg\xC3";
  std::string text;
  ASSERT_NO_THROW(text = encode_chat("r\xFE", "p1", bad_name, bad_text));
  const Json chat = wire(text);
  EXPECT_EQ(chat["name"],
            "ali\xEF\xBF\xBD"
            "ce");  // U+FFFD
  EXPECT_EQ(chat["text"], "gg\xEF\xBF\xBD");
  EXPECT_EQ(chat["room"], "r\xEF\xBF\xBD");

  RoomSummary room = sample_room();
  room.seats[0]->name = bad_name;
  ASSERT_NO_THROW(text = encode_room(room, 0));
  Json expected = room_summary_json(room);
  expected["you"] = 0;
  EXPECT_EQ(text, to_wire(expected));
  EXPECT_EQ(wire(text)["seats"][0]["name"],
            "ali\xEF\xBF\xBD"
            "ce");
  ASSERT_NO_THROW(text = encode_rooms(kNoId, {room}));
  wire(text);

  ASSERT_NO_THROW(text = encode_error(Json("\xFF"), "weird\xFF", "message \xFF"));
  const Json error = wire(text);
  EXPECT_EQ(error["message"], "message \xEF\xBF\xBD");

  const Json view = {{"name", bad_name}};
  ASSERT_NO_THROW(text = encode_state("r", 1, view, std::vector<Seat>{}, nullptr, Json::array()));
  EXPECT_EQ(wire(text)["view"]["name"],
            "ali\xEF\xBF\xBD"
            "ce");
  ASSERT_NO_THROW(text = encode_welcome(kNoId, "p", bad_name, 1));
  wire(text);
  ASSERT_NO_THROW(text = encode_game_over(bad_name, {{"winners", {bad_name}}}));
  wire(text);
}

TEST(ErrorCodes, WireNamesRoundTripAndAreUnique) {
  std::vector<std::string> names;
  for (ErrorCode code : kAllErrorCodes) {
    const std::string_view name = wire_name(code);
    EXPECT_EQ(error_code_from_wire(name), code) << name;
    for (const std::string& other : names) EXPECT_NE(other, name);
    names.emplace_back(name);
  }
  // Every code of protocol/PROTOCOL.md, by its exact wire name.
  for (const char* name : {"bad_request",       "hello_required",   "unsupported_protocol",
                           "invalid_token",     "unknown_game",     "bad_options",
                           "no_such_room",      "room_full",        "seat_taken",
                           "not_seated",        "not_started",      "already_started",
                           "game_over",         "not_your_turn",    "illegal_move",
                           "card_not_held",     "must_follow_suit", "does_not_beat",
                           "wrong_combination", "stale_state",      "rate_limited",
                           "too_many_rooms",    "not_allowed",      "unknown_strategy",
                           "internal_error",    "room_moved",       "engine_unavailable",
                           "rated_no_bots",     "no_such_player",   "shutting_down",
                           "room_locked",       "seat_empty",       "banned"}) {
    EXPECT_TRUE(error_code_from_wire(name)) << name;
  }
  EXPECT_EQ(names.size(), 36u);
  EXPECT_FALSE(error_code_from_wire("must_include_lowest"));
  EXPECT_FALSE(error_code_from_wire(""));
  EXPECT_FALSE(error_code_from_wire("BAD_REQUEST"));
}

TEST(RoomStatusNames, AreTheWireNames) {
  EXPECT_EQ(wire_name(RoomStatus::kWaiting), "waiting");
  EXPECT_EQ(wire_name(RoomStatus::kPlaying), "playing");
  EXPECT_EQ(wire_name(RoomStatus::kFinished), "finished");
  EXPECT_EQ(wire_name(RoomStatus::kFrozen), "frozen");
  EXPECT_EQ(wire_name(RoomStatus::kPaused), "paused");
}

}  // namespace
}  // namespace parlor::protocol
