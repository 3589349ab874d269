#include "protocol/request_id.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "protocol/decode.h"
#include "protocol/mutate_for_test.h"

namespace parlor::protocol {
namespace {

TEST(PeekRequestId, FindsTheTopLevelIdOnly) {
  EXPECT_EQ(peek_request_id(R"({"type":"ping","id":7})"), 7);
  EXPECT_EQ(peek_request_id(R"({ "id" : "a\"b" , "type":"ping"})"), "a\"b");
  EXPECT_EQ(peek_request_id(R"({"move":{"id":1,"cards":["3D"]},"id":2})"), 2);
  EXPECT_EQ(peek_request_id(R"({"options":[{"id":9}],"text":"\"id\":5","id":-3.5})"), -3.5);
  EXPECT_EQ(peek_request_id(R"({"move":{"id":1}})"), nullptr) << "nested ids are not the id";
  EXPECT_EQ(peek_request_id(R"({"type":"ping"})"), nullptr);
  EXPECT_EQ(peek_request_id(R"({"id":null})"), nullptr);
  EXPECT_EQ(peek_request_id(R"({"id":[1]})"), nullptr);
  EXPECT_EQ(peek_request_id(R"({"id":{"x":1}})"), nullptr);
  EXPECT_EQ(peek_request_id(R"({"id":tru})"), nullptr);
  EXPECT_EQ(peek_request_id(R"([{"id":1}])"), nullptr);
  EXPECT_EQ(peek_request_id(""), nullptr);
  EXPECT_EQ(peek_request_id("{"), nullptr);
  EXPECT_EQ(peek_request_id(R"({"id":"unterminated)"), nullptr);
  EXPECT_EQ(peek_request_id(R"({"a":"x\\","id":4})"), 4) << "an escaped backslash ends no string";
}

// Wherever the full decoder reads a request, the peek finds the same id. Over seeded
// mutations of real requests; PARLOR_SEED replays a failure.
TEST(PeekRequestId, AgreesWithTheDecoder) {
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
      ASSERT_EQ(peek_request_id(frame), request->id) << "seed " << seed << ": " << frame;
    }
  }
  EXPECT_GT(decoded, 1000) << "seed " << seed;
}

}  // namespace
}  // namespace parlor::protocol
