// The plain-move path against the general decoder: whatever it accepts must decode to
// exactly the same request, and the frames clients really send must take it.
#include "protocol/plain_move.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "games/core/json_text.h"
#include "protocol/decode.h"
#include "protocol/mutate_for_test.h"

namespace parlor::protocol {
namespace {

// Equal values of equal JSON types all the way down (nlohmann's == takes 1 and 1u as equal).
bool same_json(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), other = b.begin(); it != a.end(); ++it, ++other) {
      if (it.key() != other.key() || !same_json(*it, *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_json(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

// Checks that the general decoder gives `plain`'s request; returns a description if not.
std::string difference(const Request& plain, std::string_view frame, const Limits& limits) {
  DecodeResult general = decode_request_general(frame, limits);
  if (const auto* error = std::get_if<DecodeError>(&general)) {
    return "the general decoder refuses it: " + error->message;
  }
  const Request& expected = std::get<Request>(general);
  if (!same_json(plain.id, expected.id)) {
    return "id " + plain.id.dump() + " vs " + expected.id.dump();
  }
  const auto* move = std::get_if<Move>(&plain.command);
  const auto* expected_move = std::get_if<Move>(&expected.command);
  if (move == nullptr || expected_move == nullptr) return "not both moves";
  if (move->room != expected_move->room) return "room " + move->room;
  if (move->seq != expected_move->seq) return "seq";
  if (!same_json(move->move, expected_move->move)) {
    return "move " + move->move.dump() + " vs " + expected_move->move.dump();
  }
  // The text a durable store records in place of writing the move again.
  if (!move->move_text.empty()) {
    std::string written;
    json_text::value(written, expected_move->move);
    if (move->move_text != written) {
      return "move text " + std::string(move->move_text) + " vs " + written;
    }
  }
  return "";
}

TEST(PlainMove, TheFramesClientsSendTakeIt) {
  const Limits limits;
  const std::vector<std::string> frames = {
      // parlor-load and parlor-bot
      R"({"type":"move","id":4711,"room":"4f2a9c1b7e","seq":37,"move":{"action":"play","cards":["7D","7H","7S"]}})",
      // the web client (its own key order), a pass, no id
      R"({"type":"move","room":"4f2a9c1b7e","move":{"action":"pass"},"seq":0,"id":"m12"})",
      R"({"move":{"action":"pass"},"room":"r","type":"move"})",
      // pretty-printed, nested values of every plain kind, a negative number, a null seq
      "{\n  \"type\": \"move\",\n  \"room\": \"r1\",\n  \"seq\": null,\n  \"id\": -3,\n"
      "  \"move\": {\"action\": \"take\", \"gems\": {\"ruby\": 2, \"onyx\": 0},"
      " \"x\": [true, false, null, [], {}, -9223372036854775808, 18446744073709551615]}\n}\n",
      R"({"type":"move","room":"r","move":{},"id":null})",
  };
  for (const std::string& frame : frames) {
    const auto plain = decode_plain_move(frame, limits);
    ASSERT_TRUE(plain.has_value()) << frame;
    EXPECT_EQ(difference(*plain, frame, limits), "") << frame;
  }
  const auto first = decode_plain_move(frames[0], limits);
  const auto& move = std::get<Move>(first->command);
  EXPECT_EQ(first->id, 4711);
  EXPECT_EQ(move.room, "4f2a9c1b7e");
  EXPECT_EQ(move.seq, 37);
  EXPECT_EQ(move.move, Json::parse(R"({"action":"play","cards":["7D","7H","7S"]})"));
}

TEST(PlainMove, KeepsTheMovesTextWhenItIsTheCompactForm) {
  const Limits limits;
  const auto text_of = [&](const std::string& frame) {
    const auto plain = decode_plain_move(frame, limits);
    EXPECT_TRUE(plain.has_value()) << frame;
    if (!plain) return std::string("(refused)");
    EXPECT_EQ(difference(*plain, frame, limits), "") << frame;
    return std::string(std::get<Move>(plain->command).move_text);
  };
  const std::string head = R"({"type":"move","id":4711,"room":"4f2a9c1b7e","seq":37,"move":)";
  for (const std::string move :
       {R"({"action":"play","cards":["7D","7H","7S"]})", R"({})", R"({"a":[],"b":{},"c":null})",
        R"({"n":-1,"o":0,"p":18446744073709551615,"q":true,"r":false,"s":"two words"})",
        R"({"x":{"a":[1,[2,{"b":"c"}]],"z":"~"}})"}) {
    EXPECT_EQ(text_of(head + move + "}"), move);
    // Spaces around the move, or after it, are not the move's.
    EXPECT_EQ(text_of(R"({"type":"move","room":"r","move": )" + move + R"( , "seq":1})"), move);
  }
  // Written any other way, it is not kept: the store writes the move itself.
  for (const std::string move :
       {R"({ "action":"pass"})", R"({"action": "pass"})", R"({"cards":["3C", "3D"]})",
        R"({"action":"pass" })", R"({"cards":["3C"],"action":"play"})", R"({"n":-0})",
        R"({"x":{"b":1,"a":2}})", "{\n\"action\":\"pass\"}"}) {
    EXPECT_EQ(text_of(head + move + "}"), "") << move;
  }
  // The general decoder never keeps it.
  const DecodeResult general =
      decode_request(R"({"type":"move","room":"r\u0041","move":{"action":"pass"}})", limits);
  ASSERT_TRUE(std::holds_alternative<Request>(general));
  EXPECT_EQ(std::get<Move>(std::get<Request>(general).command).move_text, "");
}

TEST(PlainMove, LeavesEverythingElseToTheGeneralDecoder) {
  const Limits limits;
  const std::vector<std::string> frames = {
      R"({"type":"ping","id":1})",                                        // another type
      R"({"type":"move","room":"r","move":{"a":1},"extra":1})",           // an unknown field
      R"({"type":"move","room":"r","room":"s","move":{}})",               // a repeated field
      R"({"type":"move","room":"r","move":{"a":1,"a":2}})",               // a repeated key
      R"({"type":"move","room":"r\u0041","move":{}})",                    // an escape
      "{\"type\":\"move\",\"room\":\"r\xC3\xA9\",\"move\":{}}",           // non-ASCII
      R"({"type":"move","room":"r","move":{"n":1.5}})",                   // a fraction
      R"({"type":"move","room":"r","move":{"n":1e3}})",                   // an exponent
      R"({"type":"move","room":"r","move":{"n":18446744073709551616}})",  // past 64 bits
      R"({"type":"move","room":"r","move":{"n":-9223372036854775809}})",
      R"({"type":"move","room":"r","move":{"n":012}})",    // not JSON
      R"({"type":"move","room":"r","seq":-1,"move":{}})",  // out of range
      R"({"type":"move","room":"r","seq":9223372036854775808,"move":{}})",
      R"({"type":"move","room":"","move":{}})",             // empty room
      R"({"type":"move","room":"r","move":[]})",            // not an object
      R"({"type":"move","room":"r"})",                      // no move
      R"({"type":"move","move":{}})",                       // no room
      R"({"room":"r","move":{}})",                          // no type
      R"({"type":"move","room":"r","id":true,"move":{}})",  // a bad id
      R"({"type":"move","room":"r","move":{}} x)",          // trailing bytes
      R"({"type":"move","room":"r","move":{}})" + std::string(1, '\0'),
      R"({"type":"move","room":"r","move":{"a":tru}})",
      "",
  };
  for (const std::string& frame : frames) {
    EXPECT_FALSE(decode_plain_move(frame, limits).has_value()) << frame;
  }
  // Bounds: depth, keys, string and identifier lengths, frame size.
  Limits small;
  small.max_depth = 3;
  small.max_keys_per_object = 3;
  small.max_string_bytes = 4;
  small.max_identifier_bytes = 3;
  small.max_frame_bytes = 60;
  EXPECT_TRUE(decode_plain_move(R"({"type":"move","room":"abc","move":{"a":[1]}})", small));
  EXPECT_FALSE(decode_plain_move(R"({"type":"move","room":"abc","move":{"a":[[1]]}})", small));
  EXPECT_FALSE(
      decode_plain_move(R"({"type":"move","room":"abc","move":{"a":1,"b":2,"c":3,"d":4}})", small));
  EXPECT_FALSE(decode_plain_move(R"({"type":"move","room":"abc","move":{"a":"12345"}})", small));
  EXPECT_FALSE(decode_plain_move(R"({"type":"move","room":"abcd","move":{}})", small));
  EXPECT_FALSE(decode_plain_move(
      R"({"type":"move","room":"abc","move":{"a":"1234","b":"1234"},"seq":100000000000})", small));
}

// Random frames near and outside the plain form, under default and tight limits: every one
// the plain path accepts decodes the same the general way. PARLOR_SEED replays a failure.
class FrameMaker {
 public:
  explicit FrameMaker(std::uint64_t seed) : rng_(seed) {}

  std::string frame() {
    budget_ = 400;  // values per frame, so nesting cannot blow up
    std::vector<std::string> fields;
    if (chance(95)) fields.push_back(R"("type":)" + pick({R"("move")", R"("ping")", "1"}, 90));
    if (chance(60)) fields.push_back(R"("id":)" + id());
    if (chance(95)) fields.push_back(R"("room":)" + text(chance(90) ? 1 + below(10) : below(70)));
    if (chance(60)) fields.push_back(R"("seq":)" + number());
    if (chance(95)) fields.push_back(R"("move":)" + (chance(95) ? object(1) : value(1)));
    if (chance(5)) fields.push_back(R"("extra":1)");
    if (chance(5) && !fields.empty()) fields.push_back(fields[below(fields.size())]);
    for (std::size_t i = fields.size(); i > 1; --i) std::swap(fields[i - 1], fields[below(i)]);
    std::string out = space() + "{";
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += space() + ",";
      out += space() + fields[i];
    }
    out += space() + "}" + space();
    if (chance(30)) mutate(out);
    return out;
  }

 private:
  bool chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  std::string pick(std::vector<std::string> options, int first_percent) {
    return chance(first_percent) ? options[0] : options[1 + below(options.size() - 1)];
  }
  std::string space() { return chance(85) ? "" : pick({" ", "\n", "\t ", "\r\n  "}, 25); }

  std::string text(std::size_t length) {
    static constexpr char kPlain[] = "abcXYZ019 _-~!#";
    std::string out = "\"";
    for (std::size_t i = 0; i < length; ++i) {
      if (chance(3)) {
        out += pick({"\\n", "\\u00e9", "\xC3\xA9", "\\\"", "\x7F"}, 20);
      } else {
        out += kPlain[below(sizeof(kPlain) - 1)];
      }
    }
    return out + "\"";
  }

  std::string number() {
    switch (below(8)) {
      case 0:
        return "-" + std::to_string(rng_() >> below(64));
      case 1:
        return std::to_string(rng_());
      case 2:
        return pick({"18446744073709551616", "-9223372036854775809", "1.0", "2e2", "-0", "00",
                     "9223372036854775807", "9223372036854775808"},
                    12);
      case 3:
        return "null";
      default:
        return std::to_string(below(1000));
    }
  }

  std::string id() {
    switch (below(4)) {
      case 0:
        return text(below(80));
      case 1:
        return pick({"null", "true", "1.5", "[]"}, 40);
      default:
        return number();
    }
  }

  std::string value(int depth) {
    if (depth > 40 || --budget_ < 0) return "0";
    switch (below(9)) {
      case 0:
        return object(depth + 1);
      case 1:
      case 2:
        return array(depth + 1);
      case 3:
      case 4:
        return text(below(12));
      case 5:
        return pick({"true", "false", "null"}, 34);
      default:
        return number();
    }
  }

  std::string object(int depth) {
    const std::size_t keys = chance(10) ? below(300) : below(4);
    std::string out = "{";
    for (std::size_t i = 0; i < keys; ++i) {
      if (i > 0) out += space() + ",";
      out += space() + (chance(90) ? "\"k" + std::to_string(chance(97) ? i : 0) + "\"" : text(3));
      out += space() + ":" + space() + value(depth);
    }
    return out + space() + "}";
  }

  std::string array(int depth) {
    const std::size_t items = below(5);
    std::string out = "[";
    for (std::size_t i = 0; i < items; ++i) {
      if (i > 0) out += space() + ",";
      out += space() + value(depth);
    }
    return out + space() + "]";
  }

  void mutate(std::string& frame) {
    static constexpr char kBytes[] = "{}[]\":,\\u0123456789.eE-+ ntrufalsd\xFF\xC3\xA9";
    mutate_bytes(frame, rng_, std::string_view(kBytes, sizeof(kBytes) - 1),
                 1 + static_cast<int>(below(3)));
  }

  std::mt19937_64 rng_;
  int budget_ = 0;
};

TEST(PlainMove, AgreesWithTheGeneralDecoderOnRandomFrames) {
  std::uint64_t seed = 20261122;
  if (const char* env = std::getenv("PARLOR_SEED")) seed = std::strtoull(env, nullptr, 10);
  std::printf("PlainMove seed: %llu\n", static_cast<unsigned long long>(seed));
  FrameMaker maker(seed);
  Limits tight;
  tight.max_depth = 6;
  tight.max_keys_per_object = 3;
  tight.max_string_bytes = 8;
  tight.max_identifier_bytes = 6;
  tight.max_frame_bytes = 200;
  int plain = 0;
  int general_only = 0;
  for (int round = 0; round < 30'000; ++round) {
    const Limits limits = round % 3 == 0 ? tight : Limits{};
    const std::string frame = maker.frame();
    const auto request = decode_plain_move(frame, limits);
    if (request) {
      ++plain;
      ASSERT_EQ(difference(*request, frame, limits), "")
          << "seed " << seed << " round " << round << ": " << frame;
    } else if (std::holds_alternative<Request>(decode_request_general(frame, limits))) {
      ++general_only;
    }
  }
  std::printf("plain %d, general only %d of 30000\n", plain, general_only);
  // Both sides are exercised: many frames take the plain path, and valid ones outside the
  // plain form reach the general decoder.
  EXPECT_GT(plain, 3'000);
  EXPECT_GT(general_only, 1'000);
}

}  // namespace
}  // namespace parlor::protocol
