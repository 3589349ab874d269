#include "protocol/request_id.h"

#include <gtest/gtest.h>
#include <cstdlib>
#include <random>
#include "protocol/decode.h"
#include "protocol/mutate_for_test.h"

#include <string>

namespace parlor::protocol {
namespace {

TEST(RequestIdTest, ReadsIntegerAndStringIds) {
  EXPECT_EQ(scan_request_id(R"({"type":"ping","id":7})"), Json(7));
  EXPECT_EQ(scan_request_id(R"({"id":-12,"type":"ping"})"), Json(-12));
  EXPECT_EQ(scan_request_id(R"({"type":"ping","id":"abc"})"), Json("abc"));
  EXPECT_EQ(scan_request_id(" \n{ \"id\" : \"x y\" , \"type\" : \"ping\" } \t"), Json("x y"));
}

TEST(RequestIdTest, AbsentOrNullIdIsNull) {
  EXPECT_TRUE(scan_request_id(R"({"type":"ping"})").is_null());
  EXPECT_TRUE(scan_request_id(R"({})").is_null());
  EXPECT_TRUE(scan_request_id(R"({"type":"ping","id":null})").is_null());
}

TEST(RequestIdTest, OnlyTheTopLevelIdCounts) {
  EXPECT_TRUE(scan_request_id(R"({"type":"move","move":{"id":5}})").is_null());
  EXPECT_EQ(scan_request_id(R"({"move":{"id":5,"x":[{"id":6}]},"id":9})"), Json(9));
  EXPECT_EQ(scan_request_id(R"({"a":[[[{"id":1}]]],"b":{"c":{"id":2}},"id":"top"})"), Json("top"));
  // "id" written inside a string value is text, not a member.
  EXPECT_TRUE(scan_request_id(R"({"text":"\"id\":4","type":"chat"})").is_null());
  EXPECT_EQ(scan_request_id(R"({"text":"a\"b\\","id":3})"), Json(3));
}

TEST(RequestIdTest, EscapesInKeysAndValues) {
  EXPECT_EQ(scan_request_id(R"({"\u0069d":11})"), Json(11));
  EXPECT_EQ(scan_request_id(R"({"id":"q\"u\\o\u00e9"})"), Json("q\"u\\o\xc3\xa9"));
  EXPECT_TRUE(scan_request_id(R"({"i\"d":11})").is_null());
}

TEST(RequestIdTest, IdsTheDecoderWouldNotEchoAreNull) {
  EXPECT_TRUE(scan_request_id(R"({"id":1.5})").is_null());
  EXPECT_TRUE(scan_request_id(R"({"id":1e3})").is_null());
  EXPECT_TRUE(scan_request_id(R"({"id":true})").is_null());
  EXPECT_TRUE(scan_request_id(R"({"id":{"n":1}})").is_null());
  EXPECT_TRUE(scan_request_id(R"({"id":[1]})").is_null());
  EXPECT_TRUE(scan_request_id(R"({"id":"x)" + std::string(64, 'x') + R"("})").is_null());
  EXPECT_EQ(scan_request_id(R"({"id":")" + std::string(64, 'x') + R"("})"),
            Json(std::string(64, 'x')));
  EXPECT_TRUE(scan_request_id(R"({"id":99999999999999999999999})").is_null());
}

TEST(RequestIdTest, TheLastDuplicateIdWins) {
  EXPECT_EQ(scan_request_id(R"({"id":1,"id":2})"), Json(2));
}

TEST(RequestIdTest, InvalidJsonHasNoId) {
  for (const char* frame : {
           R"({"id":1)",                 // unterminated object
           R"({"id":1,})",               // trailing comma
           R"({"id":1}})",               // trailing bytes
           R"({"id":1} {"id":2})",       // two values
           R"({"id":1,"x":[1,2})",       // unclosed array
           R"({"id":1,"x":{"a"}})",      // member without a value
           R"({"id":1,"x":"a)",          // unterminated string
           R"({"id":1,"x":"\q"})",       // bad escape
           R"({"id":1,"x":"\u12"})",     // short unicode escape
           R"({"id":1,"x":01})",         // leading zero
           R"({"id":1,"x":tru})",        // bad literal
           R"({id:1})",                  // unquoted key
           R"([{"id":1}])",              // not an object
           R"("id")",                    // not an object
           "{\"id\":1,\"x\":\"a\nb\"}",  // raw control character in a string
           "",
       }) {
    EXPECT_TRUE(scan_request_id(frame).is_null()) << frame;
  }
}

TEST(RequestIdTest, NestingPastTheLimitHasNoId) {
  Limits limits;
  limits.max_depth = 4;
  EXPECT_EQ(scan_request_id(R"({"a":[[{}]],"id":1})", limits), Json(1));
  EXPECT_TRUE(scan_request_id(R"({"a":[[[{}]]],"id":1})", limits).is_null());
  // Deep nesting of the default limit's size and far beyond it is walked without recursion.
  const std::string deep =
      R"({"id":1,"a":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  Limits big;
  big.max_frame_bytes = deep.size();
  EXPECT_TRUE(scan_request_id(deep, big).is_null());
}

TEST(RequestIdTest, FramesOverTheSizeLimitHaveNoId) {
  Limits limits;
  limits.max_frame_bytes = 10;
  EXPECT_TRUE(scan_request_id(R"({"id":1,"type":"ping"})", limits).is_null());
}

// Wherever the full decoder reads a request, the peek finds the same id. Over seeded
// mutations of real requests; PARLOR_SEED replays a failure.
TEST(RequestIdTest, AgreesWithTheDecoder) {
  std::uint64_t seed = std::random_device{}();
  if (const char* env = std::getenv("PARLOR_SEED")) seed = std::strtoull(env, nullptr, 10);
  std::mt19937_64 rng(seed);
  const std::string frames[] = {
      R"({"type":"ping","id":1})",
      R"({"type":"move","room":"r1","id":"m-2","seq":4,"move":{"action":"play","cards":["3D"]}})",
      R"({"id":33,"type":"create_room","kind":"bigtwo","options":{"id":5,"seed":1}})",
      R"({"type":"chat","room":"r","text":"\"id\": 9","id":12})",
      R"({"type":"hello","name":"ann","protocol":1,"id":"h"})",
  };
  int decoded = 0;
  for (int i = 0; i < 20'000; ++i) {
    std::string frame = frames[rng() % std::size(frames)];
    mutate_bytes(frame, rng, R"({}[]":,\ 0123456789idtypen)", static_cast<int>(rng() % 4));
    const auto result = decode_request(frame);
    if (const auto* request = std::get_if<Request>(&result)) {
      ++decoded;
      ASSERT_EQ(scan_request_id(frame), request->id) << "seed " << seed << ": " << frame;
    }
  }
  EXPECT_GT(decoded, 1000) << "seed " << seed;
}

}  // namespace
}  // namespace parlor::protocol
