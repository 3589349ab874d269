#include "protocol/decode.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "protocol/encode.h"
#include "protocol/mutate_for_test.h"
#include "protocol/text.h"

namespace parlor::protocol {
namespace {

Request decoded(std::string_view frame, const Limits& limits = {}) {
  DecodeResult result = decode_request(frame, limits);
  if (auto* error = std::get_if<DecodeError>(&result)) {
    ADD_FAILURE() << "refused " << frame << ": " << error->message;
    return {};
  }
  return std::get<Request>(std::move(result));
}

template <typename T>
T command(std::string_view frame) {
  Request request = decoded(frame);
  if (!std::holds_alternative<T>(request.command)) {
    ADD_FAILURE() << frame << " decoded as " << command_name(request.command);
    return {};
  }
  return std::get<T>(std::move(request.command));
}

DecodeError refused(std::string_view frame, const Limits& limits = {}) {
  DecodeResult result = decode_request(frame, limits);
  if (!std::holds_alternative<DecodeError>(result)) {
    ADD_FAILURE() << "accepted, but should not have: " << frame.substr(0, 120);
    return {};
  }
  return std::get<DecodeError>(std::move(result));
}

// The message of a bad_request refusal, checking the code on the way.
std::string refusal(std::string_view frame, const Limits& limits = {}) {
  const DecodeError error = refused(frame, limits);
  EXPECT_EQ(error.code, ErrorCode::kBadRequest) << frame;
  return error.message;
}

// ---- every message type ----

TEST(Decode, Hello) {
  const Hello hello = command<Hello>(R"({"type":"hello","name":"alice","protocol":1})");
  EXPECT_EQ(hello.name, "alice");
  EXPECT_FALSE(hello.token);
  EXPECT_EQ(hello.protocol, 1);

  const Hello resume = command<Hello>(R"({"type":"hello","token":"s3cr3t","protocol":1})");
  EXPECT_FALSE(resume.name);
  EXPECT_EQ(resume.token, "s3cr3t");

  // A newer protocol number decodes; the server answers unsupported_protocol.
  EXPECT_EQ(command<Hello>(R"({"type":"hello","name":"a","protocol":2})").protocol, 2);
}

TEST(Decode, CommandsWithoutFields) {
  command<ListGames>(R"({"type":"list_games"})");
  command<ListRooms>(R"({"type":"list_rooms"})");
  command<Ping>(R"({"type":"ping"})");
}

TEST(Decode, CreateRoom) {
  const CreateRoom full =
      command<CreateRoom>(R"({"type":"create_room","kind":"bigtwo","seats":4,"options":{"x":1}})");
  EXPECT_EQ(full.kind, "bigtwo");
  EXPECT_EQ(full.seats, 4);
  EXPECT_EQ(full.options, Json({{"x", 1}}));

  const CreateRoom minimal = command<CreateRoom>(R"({"type":"create_room","kind":"spades"})");
  EXPECT_FALSE(minimal.seats);
  EXPECT_EQ(minimal.options, Json::object());
  EXPECT_EQ(command<CreateRoom>(R"({"type":"create_room","kind":"k","options":null})").options,
            Json::object());
}

TEST(Decode, RatedTables) {
  EXPECT_FALSE(command<CreateRoom>(R"({"type":"create_room","kind":"k"})").rated);
  EXPECT_TRUE(command<CreateRoom>(R"({"type":"create_room","kind":"k","rated":true})").rated);
  EXPECT_TRUE(command<QuickPlay>(R"({"type":"quick_play","kind":"k","rated":true})").rated);
  EXPECT_FALSE(command<QuickPlay>(R"({"type":"quick_play","kind":"k","rated":null})").rated);
  EXPECT_NE(refusal(R"({"type":"create_room","kind":"k","rated":1})").find("rated"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"type":"quick_play","kind":"k","rated":"yes"})").find("rated"),
            std::string::npos);
}

TEST(Decode, JoinWatchLeaveStartLegalMoves) {
  const JoinRoom join = command<JoinRoom>(R"({"type":"join_room","room":"r1","seat":3})");
  EXPECT_EQ(join.room, "r1");
  EXPECT_EQ(join.seat, 3);
  EXPECT_FALSE(command<JoinRoom>(R"({"type":"join_room","room":"r1"})").seat);
  EXPECT_FALSE(command<JoinRoom>(R"({"type":"join_room","room":"r1","seat":null})").seat);
  EXPECT_EQ(command<WatchRoom>(R"({"type":"watch_room","room":"r2"})").room, "r2");
  EXPECT_EQ(command<LeaveRoom>(R"({"type":"leave_room","room":"r3"})").room, "r3");
  EXPECT_EQ(command<Start>(R"({"type":"start","room":"r4"})").room, "r4");
  EXPECT_EQ(command<LegalMoves>(R"({"type":"legal_moves","room":"r5"})").room, "r5");
}

TEST(Decode, AddBot) {
  const AddBot bot =
      command<AddBot>(R"({"type":"add_bot","room":"r","seat":2,"strategy":"greedy"})");
  EXPECT_EQ(bot.room, "r");
  EXPECT_EQ(bot.seat, 2);
  EXPECT_EQ(bot.strategy, "greedy");
  EXPECT_EQ(command<AddBot>(R"({"type":"add_bot","room":"r","seat":1})").strategy, "random");
}

TEST(Decode, Chat) {
  const Chat chat = command<Chat>(R"({"type":"chat","room":"r","text":"  good game!\nrematch? "})");
  EXPECT_EQ(chat.room, "r");
  EXPECT_EQ(chat.text, "good game!\nrematch?");
  EXPECT_EQ(command<Chat>(R"({"type":"chat","room":"r","text":"\u00e9\t\ud83c\udca1"})").text,
            "é\t\xF0\x9F\x82\xA1");
}

TEST(Decode, Move) {
  const Move move = command<Move>(
      R"({"type":"move","room":"r","move":{"action":"play","cards":["3D","3S"]},"seq":12})");
  EXPECT_EQ(move.room, "r");
  EXPECT_EQ(move.move, Json({{"action", "play"}, {"cards", {"3D", "3S"}}}));
  EXPECT_EQ(move.seq, 12);
  EXPECT_FALSE(command<Move>(R"({"type":"move","room":"r","move":{"action":"pass"}})").seq);
  EXPECT_EQ(command<Move>(R"({"type":"move","room":"r","move":{},"seq":9223372036854775807})").seq,
            INT64_MAX);
}

TEST(Decode, GetReplay) {
  const GetReplay replay = command<GetReplay>(R"({"type":"get_replay","room":"r","seat":0})");
  EXPECT_EQ(replay.room, "r");
  EXPECT_EQ(replay.seat, 0);
  EXPECT_FALSE(command<GetReplay>(R"({"type":"get_replay","room":"r"})").seat);
}

TEST(Decode, HostControlsAndMute) {
  const RemoveSeat remove = command<RemoveSeat>(R"({"type":"remove_seat","room":"r","seat":2})");
  EXPECT_EQ(remove.room, "r");
  EXPECT_EQ(remove.seat, 2);
  EXPECT_EQ(command<LockRoom>(R"({"type":"lock_room","room":"r"})").room, "r");
  EXPECT_EQ(command<UnlockRoom>(R"({"type":"unlock_room","room":"r"})").room, "r");
  EXPECT_EQ(command<Mute>(R"({"type":"mute","player":"p1"})").player, "p1");
  EXPECT_EQ(command<Unmute>(R"({"type":"unmute","player":"p1"})").player, "p1");
  for (const char* bad :
       {R"({"type":"remove_seat","room":"r"})", R"({"type":"remove_seat","room":"r","seat":-1})",
        R"({"type":"remove_seat","room":"r","seat":"1"})", R"({"type":"remove_seat","seat":1})",
        R"({"type":"lock_room"})", R"({"type":"unlock_room","room":7})", R"({"type":"mute"})",
        R"({"type":"unmute","player":""})"}) {
    EXPECT_EQ(refused(bad).code, ErrorCode::kBadRequest) << bad;
  }
}

TEST(Decode, CommandNameIsTheWireType) {
  for (const char* frame : {R"({"type":"hello","name":"a","protocol":1})",
                            R"({"type":"list_games"})",
                            R"({"type":"list_rooms"})",
                            R"({"type":"create_room","kind":"k"})",
                            R"({"type":"join_room","room":"r"})",
                            R"({"type":"watch_room","room":"r"})",
                            R"({"type":"leave_room","room":"r"})",
                            R"({"type":"add_bot","room":"r","seat":0})",
                            R"({"type":"start","room":"r"})",
                            R"({"type":"chat","room":"r","text":"hi"})",
                            R"({"type":"ping"})",
                            R"({"type":"move","room":"r","move":{}})",
                            R"({"type":"legal_moves","room":"r"})",
                            R"({"type":"get_replay","room":"r"})",
                            R"({"type":"rename","name":"b"})",
                            R"({"type":"revoke_token"})",
                            R"({"type":"remove_seat","room":"r","seat":1})",
                            R"({"type":"lock_room","room":"r"})",
                            R"({"type":"unlock_room","room":"r"})",
                            R"({"type":"mute","player":"p"})",
                            R"({"type":"unmute","player":"p"})"}) {
    const Request request = decoded(frame);
    EXPECT_EQ(command_name(request.command), Json::parse(frame)["type"].get<std::string>());
  }
}

TEST(Decode, UnknownFieldsAreIgnored) {
  EXPECT_EQ(command<Start>(R"({"type":"start","room":"r","future":[1,{"x":null}]})").room, "r");
}

// ---- ids ----

TEST(DecodeId, StringAndIntegerIdsAreKept) {
  EXPECT_EQ(decoded(R"({"type":"ping","id":"abc"})").id, "abc");
  EXPECT_EQ(decoded(R"({"type":"ping","id":42})").id, 42);
  EXPECT_EQ(decoded(R"({"type":"ping","id":-3})").id, -3);
  EXPECT_EQ(decoded(R"({"type":"ping","id":18446744073709551615})").id, UINT64_MAX);
  EXPECT_TRUE(decoded(R"({"type":"ping"})").id.is_null());
  EXPECT_TRUE(decoded(R"({"type":"ping","id":null})").id.is_null());
  EXPECT_EQ(decoded(R"({"type":"ping","id":")" + std::string(64, 'i') + "\"}").id.size(), 1u);
}

TEST(DecodeId, OtherIdsAreRefusedWithoutEcho) {
  for (const std::string& frame : std::vector<std::string>{
           R"({"type":"ping","id":1.5})", R"({"type":"ping","id":1e300})",
           R"({"type":"ping","id":true})", R"({"type":"ping","id":[1]})",
           R"({"type":"ping","id":{"a":1}})", R"({"type":"ping","id":18446744073709551616})",
           R"({"type":"ping","id":")" + std::string(65, 'i') + "\"}"}) {
    const DecodeError error = refused(frame);
    EXPECT_EQ(error.message, "\"id\" must be an integer or a string of at most 64 bytes");
    EXPECT_TRUE(error.id.is_null()) << frame;
  }
}

TEST(DecodeId, FieldErrorsEchoTheId) {
  EXPECT_EQ(refused(R"({"type":"join_room","id":"j1"})").id, "j1");
  EXPECT_EQ(refused(R"({"type":"nope","id":5})").id, 5);
  EXPECT_EQ(refused(R"({"id":5})").id, 5);
  // Past a JSON limit the id read before the offending value is still echoed...
  EXPECT_EQ(
      refused(R"({"id":8,"type":"chat","room":"r","text":")" + std::string(2000, 'x') + "\"}").id,
      8);
  // ...but a frame that is not JSON gets none, even if it starts like one.
  EXPECT_TRUE(refused(R"({"id":9,"type":"ping")").id.is_null());
  EXPECT_TRUE(refused("{\"id\":9,\"type\":\"chat\",\"text\":\"\xFF\"}").id.is_null());
}

// ---- frames that are not messages ----

TEST(DecodeFrame, NotJsonNotObjectEmptyOrUnknownType) {
  EXPECT_EQ(refusal(""), "empty frame");
  EXPECT_EQ(refusal("   "), "empty frame");
  EXPECT_EQ(refusal("hello"), "frame is not valid JSON (byte offset 0)");
  EXPECT_EQ(refusal(R"({"type":"ping"} {})"), "frame is not valid JSON (byte offset 16)");
  EXPECT_EQ(refusal(R"([{"type":"ping"}])"), "a message must be a JSON object");
  EXPECT_EQ(refusal(R"("ping")"), "a message must be a JSON object");
  EXPECT_EQ(refusal("null"), "a message must be a JSON object");
  EXPECT_EQ(refusal("{}"), "a message needs a string \"type\"");
  EXPECT_EQ(refusal(R"({"type":7})"), "a message needs a string \"type\"");
  EXPECT_EQ(refusal(R"({"type":"teleport"})"), "unknown message type \"teleport\"");
  EXPECT_EQ(refusal(R"({"type":"PING"})"), "unknown message type \"PING\"");
}

TEST(DecodeFrame, UnknownTypeIsQuotedTruncatedAndSanitized) {
  const std::string message = refusal(R"({"type":")" + std::string(300, 't') + "\"}");
  EXPECT_EQ(message, "unknown message type \"" + std::string(64, 't') + "...\"");
  EXPECT_EQ(refusal(R"({"type":"a\nb\u202e"})"), "unknown message type \"a?b?\"");
}

TEST(DecodeFrame, InvalidUtf8IsBadRequestAndNeverEchoed) {
  for (const std::string& frame : std::vector<std::string>{
           std::string("{\"type\":\"ping\xFF\"}"),
           std::string("{\"type\":\"hello\",\"name\":\"\xC3\"}"),
           std::string("{\"type\":\"chat\",\"room\":\"r\",\"text\":\"\xED\xA0\x80\"}"),
           std::string("\xEF\xBB\xBF\xFF"), std::string("{\"type\":\"ping\"}\x80")}) {
    const std::string message = refusal(frame);
    EXPECT_EQ(message.rfind("frame is not valid UTF-8 (byte offset ", 0), 0u) << message;
    EXPECT_TRUE(is_valid_utf8(message));
  }
  // Escaped lone surrogates are not text either.
  EXPECT_EQ(refusal(R"({"type":"hello","name":"\ud800","protocol":1})").rfind("frame is not", 0),
            0u);
}

TEST(DecodeFrame, SizeLimit) {
  const std::string big = R"({"type":"ping","pad":")" + std::string(20'000, ' ') + "\"}";
  EXPECT_EQ(refusal(big),
            "frame of " + std::to_string(big.size()) + " bytes is over the 16384-byte limit");
  // Every limit is a setting: raised, the same frame decodes.
  Limits roomy;
  roomy.max_frame_bytes = 64 * 1024;
  roomy.max_string_bytes = 32 * 1024;
  EXPECT_TRUE(std::holds_alternative<Ping>(decoded(big, roomy).command));
}

TEST(DecodeFrame, NestingAt32IsAcceptedAt33Refused) {
  // The top-level object is level 1 and the move object level 2: 30 more levels inside it.
  auto move_with_depth = [](int total) {
    std::string inner = "{}";
    for (int level = total; level > 2; --level) inner = R"({"a":)" + inner + "}";
    return R"({"type":"move","id":1,"room":"r","move":)" + inner + "}";
  };
  const Move move = command<Move>(move_with_depth(32));
  EXPECT_TRUE(move.move.contains("a"));
  const DecodeError error = refused(move_with_depth(33));
  EXPECT_EQ(error.message, "JSON nested deeper than 32 levels");
  EXPECT_EQ(error.id, 1);
}

TEST(DecodeFrame, HundredThousandDeepIsRefusedBeforeBuildingIt) {
  std::string deep = R"({"id":"d","type":"move","room":"r","move":{"a":)";
  deep += std::string(100'000, '[');
  // Default limits: refused on size before parsing.
  EXPECT_EQ(refusal(deep).rfind("frame of ", 0), 0u);
  // Size cap lifted: refused at level 33, with the id that came first.
  Limits limits;
  limits.max_frame_bytes = 1 << 20;
  const DecodeError error = refused(deep, limits);
  EXPECT_EQ(error.code, ErrorCode::kBadRequest);
  EXPECT_EQ(error.message, "JSON nested deeper than 32 levels");
  EXPECT_EQ(error.id, "d");
  // The error itself serializes fine (the partial tree never reaches the reply).
  EXPECT_EQ(Json::parse(encode_error(error))["re"], "d");
}

TEST(DecodeFrame, KeysAndStringLength) {
  std::string many = R"({"type":"ping")";
  for (int i = 0; i < 256; ++i) many += ",\"k" + std::to_string(i) + "\":0";
  many += "}";
  EXPECT_EQ(refusal(many), "a JSON object has more than 256 keys");
  EXPECT_EQ(refusal(R"({"type":"ping","x":")" + std::string(1025, 'x') + "\"}"),
            "a JSON string is longer than 1024 bytes");
}

// ---- field shapes ----

TEST(DecodeFields, MissingOrWrongTypeRequiredFields) {
  EXPECT_EQ(refusal(R"({"type":"create_room"})"), "create_room needs a string \"kind\"");
  EXPECT_EQ(refusal(R"({"type":"create_room","kind":4})"), "create_room needs a string \"kind\"");
  EXPECT_EQ(refusal(R"({"type":"create_room","kind":null})"),
            "create_room needs a string \"kind\"");
  EXPECT_EQ(refusal(R"({"type":"join_room","seat":1})"), "join_room needs a string \"room\"");
  EXPECT_EQ(refusal(R"({"type":"watch_room","room":["r"]})"), "watch_room needs a string \"room\"");
  EXPECT_EQ(refusal(R"({"type":"leave_room"})"), "leave_room needs a string \"room\"");
  EXPECT_EQ(refusal(R"({"type":"start","room":{}})"), "start needs a string \"room\"");
  EXPECT_EQ(refusal(R"({"type":"legal_moves"})"), "legal_moves needs a string \"room\"");
  EXPECT_EQ(refusal(R"({"type":"get_replay"})"), "get_replay needs a string \"room\"");
  EXPECT_EQ(refusal(R"({"type":"add_bot","room":"r"})"), "add_bot needs an integer \"seat\"");
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r"})"), "chat needs a string \"text\"");
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r","text":5})"), "chat needs a string \"text\"");
  EXPECT_EQ(refusal(R"({"type":"move","room":"r"})"), "move needs an object \"move\"");
  EXPECT_EQ(refusal(R"({"type":"move","room":"r","move":"pass"})"),
            "move needs an object \"move\"");
  EXPECT_EQ(refusal(R"({"type":"move","room":"r","move":[{"action":"pass"}]})"),
            "move needs an object \"move\"");
  EXPECT_EQ(refusal(R"({"type":"move","move":{}})"), "move needs a string \"room\"");
}

TEST(DecodeFields, OptionalFieldsOfTheWrongType) {
  EXPECT_EQ(refusal(R"({"type":"create_room","kind":"k","options":[]})"),
            "\"options\" must be an object");
  EXPECT_EQ(refusal(R"({"type":"create_room","kind":"k","options":"x"})"),
            "\"options\" must be an object");
  EXPECT_EQ(refusal(R"({"type":"add_bot","room":"r","seat":0,"strategy":3})"),
            "\"strategy\" must be a string");
  EXPECT_EQ(refusal(R"({"type":"add_bot","room":"r","seat":0,"strategy":""})"),
            "\"strategy\" must be 1 to 64 bytes");
}

TEST(DecodeFields, IdentifierLengths) {
  EXPECT_EQ(refusal(R"({"type":"start","room":""})"), "\"room\" must be 1 to 64 bytes");
  EXPECT_EQ(refusal(R"({"type":"start","room":")" + std::string(65, 'r') + "\"}"),
            "\"room\" must be 1 to 64 bytes");
  EXPECT_EQ(
      command<Start>(R"({"type":"start","room":")" + std::string(64, 'r') + "\"}").room.size(),
      64u);
  EXPECT_EQ(refusal(R"({"type":"create_room","kind":")" + std::string(65, 'k') + "\"}"),
            "\"kind\" must be 1 to 64 bytes");
}

TEST(DecodeFields, SeatsMustBeSmallNonNegativeIntegers) {
  const std::string seat_message = "\"seat\" must be an integer between 0 and 15";
  for (const char* seat :
       {"-1", "16", "1.0", "0.5", "1e300", "-1e300", "18446744073709551616", "18446744073709551615",
        "9223372036854775808", "-9223372036854775808", "\"1\"", "true", "[1]", "{}"}) {
    EXPECT_EQ(refusal(std::string(R"({"type":"join_room","room":"r","seat":)") + seat + "}"),
              seat_message)
        << seat;
    EXPECT_EQ(refusal(std::string(R"({"type":"add_bot","room":"r","seat":)") + seat + "}"),
              seat_message)
        << seat;
    EXPECT_EQ(refusal(std::string(R"({"type":"get_replay","room":"r","seat":)") + seat + "}"),
              seat_message)
        << seat;
  }
  EXPECT_EQ(command<JoinRoom>(R"({"type":"join_room","room":"r","seat":15})").seat, 15);
  EXPECT_EQ(command<JoinRoom>(R"({"type":"join_room","room":"r","seat":-0})").seat, 0);

  const std::string seats_message = "\"seats\" must be an integer between 1 and 16";
  for (const char* seats : {"0", "-4", "17", "4.0", "1e300", "4294967300", "\"4\""}) {
    EXPECT_EQ(refusal(std::string(R"({"type":"create_room","kind":"k","seats":)") + seats + "}"),
              seats_message)
        << seats;
  }
  EXPECT_EQ(command<CreateRoom>(R"({"type":"create_room","kind":"k","seats":16})").seats, 16);
}

TEST(DecodeFields, SeqAndProtocolRanges) {
  const std::string seq_message = "\"seq\" must be an integer between 0 and 9223372036854775807";
  for (const char* seq :
       {"-1", "9223372036854775808", "18446744073709551615", "1.5", "1e300", "\"3\""}) {
    EXPECT_EQ(refusal(std::string(R"({"type":"move","room":"r","move":{},"seq":)") + seq + "}"),
              seq_message)
        << seq;
  }
  EXPECT_EQ(refusal(R"({"type":"hello","name":"a"})"), "hello needs an integer \"protocol\"");
  for (const char* protocol : {"-1", "1.0", "2147483648", "1e300", "\"1\""}) {
    EXPECT_EQ(refusal(std::string(R"({"type":"hello","name":"a","protocol":)") + protocol + "}"),
              "\"protocol\" must be an integer between 0 and 2147483647")
        << protocol;
  }
}

// ---- hello rules ----

TEST(DecodeHello, NameRules) {
  EXPECT_EQ(command<Hello>(R"({"type":"hello","name":"  Zoë 🂡  ","protocol":1})").name, "Zoë 🂡");
  EXPECT_EQ(command<Hello>(R"({"type":"hello","name":"a b","protocol":1})").name, "a b");
  const std::string at_limit(32, 'n');
  EXPECT_EQ(command<Hello>(R"({"type":"hello","protocol":1,"name":")" + at_limit + "\"}").name,
            at_limit);
  // 16 two-byte characters are 32 bytes; one more is too many.
  EXPECT_TRUE(command<Hello>(R"({"type":"hello","protocol":1,"name":"éééééééééééééééé"})").name);

  const std::string length_message = "\"name\" must be 1 to 32 bytes after trimming spaces";
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"name":""})"), length_message);
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"name":"   \t "})"), length_message);
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"name":")" + std::string(33, 'n') + "\"}"),
            length_message);
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"name":"ééééééééééééééééé"})"), length_message);

  const std::string control_message = "\"name\" must not contain control characters";
  for (const char* name : {R"(a\nb)", R"(a\u0000b)", R"(a\u0007)", R"(\u007f)", R"(x\u0085)",
                           R"(\u202eevil)", R"(a\u2066b)"}) {
    EXPECT_EQ(refusal(std::string(R"({"type":"hello","protocol":1,"name":")") + name + "\"}"),
              control_message)
        << name;
  }
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"name":7})"), "\"name\" must be a string");
}

TEST(DecodeRename, TheNameFollowsHellosRulesWithHellosMessages) {
  EXPECT_EQ(command<Rename>(R"({"type":"rename","name":"  Zoë 🂡  "})").name, "Zoë 🂡");
  command<RevokeToken>(R"({"type":"revoke_token"})");
  // Each bad name is refused with the message hello gives for it.
  for (const std::string& name :
       std::vector<std::string>{R"("")", R"("   \t ")", "\"" + std::string(33, 'n') + "\"",
                                R"("a\u0007")", R"("\u202eevil")", "7", "[]"}) {
    const std::string hello = refusal(R"({"type":"hello","protocol":1,"name":)" + name + "}");
    EXPECT_EQ(refusal(R"({"type":"rename","name":)" + name + "}"), hello) << name;
  }
  EXPECT_EQ(refusal(R"({"type":"rename"})"), R"(rename needs a string "name")");
  EXPECT_EQ(refusal(R"({"type":"rename","name":null})"), R"(rename needs a string "name")");
}

TEST(DecodeHello, TokenRulesAndNeedsNameOrToken) {
  const std::string token_message = "\"token\" must be a string of 1 to 128 bytes";
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"token":""})"), token_message);
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1,"token":12})"), token_message);
  const std::string long_token(129, 't');
  const std::string message =
      refusal(R"({"type":"hello","protocol":1,"token":")" + long_token + "\"}");
  EXPECT_EQ(message, token_message);
  EXPECT_EQ(refusal(R"({"type":"hello","protocol":1})"),
            "hello needs a \"name\" (or a \"token\" to resume)");
  const Hello both = command<Hello>(R"({"type":"hello","protocol":1,"name":"a","token":"t"})");
  EXPECT_EQ(both.name, "a");
  EXPECT_EQ(both.token, "t");
}

TEST(DecodeChat, TextRules) {
  const std::string length_message = "\"text\" must be 1 to 500 bytes after trimming spaces";
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r","text":""})"), length_message);
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r","text":" \n "})"), length_message);
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r","text":")" + std::string(501, 'c') + "\"}"),
            length_message);
  EXPECT_EQ(command<Chat>(R"({"type":"chat","room":"r","text":")" + std::string(500, 'c') + "\"}")
                .text.size(),
            500u);
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r","text":"a\rb"})"),
            "\"text\" must not contain control characters other than tab and newline");
  EXPECT_EQ(refusal(R"({"type":"chat","room":"r","text":"\u202egg"})"),
            "\"text\" must not contain control characters other than tab and newline");
}

TEST(NormalizeName, RejectsInvalidUtf8Directly) {
  std::string error;
  EXPECT_FALSE(normalize_name("bad\xFF", Limits{}, error));
  EXPECT_EQ(error, "\"name\" must be valid UTF-8");
  EXPECT_EQ(normalize_name(" bot ", Limits{}, error), "bot");
}

// ---- robustness ----

// Seeded byte mutations of valid frames: whatever comes in, decoding returns a value, and
// every refusal serializes to valid JSON with a valid UTF-8 message. Set PARLOR_SEED
// to replay a failure.
TEST(DecodeRobustness, MutatedFramesNeverThrow) {
  std::uint64_t seed = 20240601;
  if (const char* env = std::getenv("PARLOR_SEED")) seed = std::strtoull(env, nullptr, 10);
  std::printf("DecodeRobustness seed: %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::string> seeds = {
      R"({"type":"hello","name":"alice","protocol":1,"id":1})",
      R"({"type":"create_room","kind":"bigtwo","seats":4,"options":{"a":[1,2]},"id":"c"})",
      R"({"type":"move","room":"r","move":{"action":"play","cards":["3D","3S"]},"seq":3})",
      R"({"type":"chat","room":"r","text":"gg \u00e9"})",
      R"({"type":"add_bot","room":"r","seat":1,"strategy":"random"})",
  };
  const char alphabet[] = "{}[]\":,\\u0123456789.eE-+ ntrufalsd\xFF\xC3\xA9\xED\x80";
  int accepted = 0;
  for (int round = 0; round < 20'000; ++round) {
    std::string frame = seeds[rng() % seeds.size()];
    mutate_bytes(frame, rng, std::string_view(alphabet, sizeof(alphabet) - 1),
                 1 + static_cast<int>(rng() % 4));
    DecodeResult result = decode_request(frame);
    if (auto* error = std::get_if<DecodeError>(&result)) {
      ASSERT_TRUE(is_valid_utf8(error->message)) << "seed " << seed << " round " << round;
      const Json reply = Json::parse(encode_error(*error));
      ASSERT_EQ(reply["code"], "bad_request") << frame;
    } else {
      ++accepted;
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace parlor::protocol
