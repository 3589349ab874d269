#include "protocol/bounded_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace parlor::protocol {
namespace {

using Kind = JsonParseFailure::Kind;

JsonParseFailure failure_of(std::string_view text, const Limits& limits = {}) {
  auto result = parse_bounded_json(text, limits);
  if (!std::holds_alternative<JsonParseFailure>(result)) {
    ADD_FAILURE() << "parsed, but should not have: " << text.substr(0, 80);
    return {};
  }
  return std::get<JsonParseFailure>(std::move(result));
}

Json parsed(std::string_view text, const Limits& limits = {}) {
  auto result = parse_bounded_json(text, limits);
  if (auto* failure = std::get_if<JsonParseFailure>(&result)) {
    ADD_FAILURE() << "refused: " << failure->message;
    return {};
  }
  return std::get<Json>(std::move(result));
}

// `depth` objects nested inside each other: {"a":{"a":...{}}}
std::string nested_objects(int depth) {
  std::string text;
  for (int i = 1; i < depth; ++i) text += R"({"a":)";
  text += "{}";
  text += std::string(static_cast<std::size_t>(depth - 1), '}');
  return text;
}

int depth_of(const Json& value) {
  if (!value.is_structured()) return 0;
  int deepest = 0;
  for (const Json& child : value) deepest = std::max(deepest, depth_of(child));
  return deepest + 1;
}

TEST(BoundedJson, ParsesOrdinaryJson) {
  const Json value = parsed(R"({"a":[1,-2,3.5,true,null,"x"],"b":{"c":18446744073709551615}})");
  EXPECT_EQ(value["a"][1], -2);
  EXPECT_EQ(value["a"][5], "x");
  EXPECT_TRUE(value["b"]["c"].is_number_unsigned());
  EXPECT_EQ(parsed("  7 "), 7);
  EXPECT_EQ(parsed(R"("text")"), "text");
  EXPECT_EQ(parsed("[]"), Json::array());
}

TEST(BoundedJson, DepthLimitIsInclusive) {
  EXPECT_EQ(depth_of(parsed(nested_objects(32))), 32);
  const JsonParseFailure failure = failure_of(nested_objects(33));
  EXPECT_EQ(failure.kind, Kind::kTooDeep);
  EXPECT_EQ(failure.message, "JSON nested deeper than 32 levels");
  EXPECT_LE(depth_of(failure.partial), 32);

  EXPECT_EQ(depth_of(parsed(std::string(32, '[') + std::string(32, ']'))), 32);
  EXPECT_EQ(failure_of(std::string(33, '[') + std::string(33, ']')).kind, Kind::kTooDeep);
}

TEST(BoundedJson, HugeNestingStopsAtTheLimitWithoutBuildingTheTree) {
  // The frame that crashes nlohmann 3.11.2 when copied or dumped: with the size cap lifted,
  // parsing still stops at level 33 and what was built is 32 deep.
  Limits limits;
  limits.max_frame_bytes = 1 << 20;
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const JsonParseFailure failure = failure_of(deep, limits);
  EXPECT_EQ(failure.kind, Kind::kTooDeep);
  EXPECT_EQ(depth_of(failure.partial), 32);
  // Unclosed, as a hostile client would send it.
  EXPECT_EQ(failure_of(std::string(100'000, '['), limits).kind, Kind::kTooDeep);
  // With the default limits a 200 KB frame is refused before parsing at all.
  const JsonParseFailure too_large = failure_of(deep);
  EXPECT_EQ(too_large.kind, Kind::kTooLarge);
  EXPECT_EQ(too_large.message, "frame of 200000 bytes is over the 16384-byte limit");
  EXPECT_TRUE(too_large.partial.is_null());
}

TEST(BoundedJson, FrameSizeLimitIsInclusive) {
  Limits limits;
  limits.max_frame_bytes = 10;
  EXPECT_EQ(parsed(R"({"a":"12"})", limits)["a"], "12");  // exactly 10 bytes
  EXPECT_EQ(failure_of(R"({"a":"123"})", limits).kind, Kind::kTooLarge);
}

TEST(BoundedJson, KeysPerObjectLimitCountsDuplicates) {
  auto object_with_keys = [](int count, bool distinct) {
    std::string text = "{";
    for (int i = 0; i < count; ++i) {
      if (i > 0) text += ',';
      text += "\"k" + std::to_string(distinct ? i : 0) + "\":0";
    }
    return text + "}";
  };
  EXPECT_EQ(parsed(object_with_keys(256, true)).size(), 256u);
  const JsonParseFailure failure = failure_of(object_with_keys(257, true));
  EXPECT_EQ(failure.kind, Kind::kTooManyKeys);
  EXPECT_EQ(failure.message, "a JSON object has more than 256 keys");
  EXPECT_EQ(failure_of(object_with_keys(257, false)).kind, Kind::kTooManyKeys);
  // The count is per object: two objects of 200 keys each are fine.
  EXPECT_EQ(
      parsed("[" + object_with_keys(200, true) + "," + object_with_keys(200, true) + "]").size(),
      2u);
}

TEST(BoundedJson, StringLengthLimitAppliesToValuesAndKeys) {
  const std::string at_limit(1024, 's');
  const std::string over_limit(1025, 's');
  EXPECT_EQ(parsed("[\"" + at_limit + "\"]")[0].get<std::string>().size(), 1024u);
  const JsonParseFailure value = failure_of("[\"" + over_limit + "\"]");
  EXPECT_EQ(value.kind, Kind::kStringTooLong);
  EXPECT_EQ(value.message, "a JSON string is longer than 1024 bytes");
  EXPECT_EQ(failure_of("{\"" + over_limit + "\":1}").kind, Kind::kStringTooLong);
  EXPECT_EQ(parsed("{\"" + at_limit + "\":1}").size(), 1u);
}

TEST(BoundedJson, EmptyFrames) {
  EXPECT_EQ(failure_of("").kind, Kind::kEmpty);
  EXPECT_EQ(failure_of(" \r\n\t").kind, Kind::kEmpty);
  EXPECT_EQ(failure_of("").message, "empty frame");
}

TEST(BoundedJson, SyntaxErrorsNamePositionsNotContent) {
  for (const char* text : {"{", "{\"a\":}", "[1,]", "nul", "{\"a\":1} x", "'a'", "{a:1}", "[1 2]",
                           "1e999", "\"\\ud800\"", "{\"a\":1,}"}) {
    const JsonParseFailure failure = failure_of(text);
    EXPECT_EQ(failure.kind, Kind::kSyntax) << text;
    EXPECT_EQ(failure.message.rfind("frame is not valid JSON (byte offset ", 0), 0u)
        << failure.message;
  }
  EXPECT_EQ(failure_of("[1 2]").message, "frame is not valid JSON (byte offset 3)");
}

TEST(BoundedJson, InvalidUtf8IsReportedAsSuchWithoutEchoingIt) {
  for (const std::string& text : std::vector<std::string>{
           std::string("{\"name\":\"a\xFF\"}"), std::string("{\"a\":\"\xC0\x80\"}"),
           std::string("{\"a\":\"\xED\xA0\x80\"}"), std::string("\xFF{}")}) {
    const JsonParseFailure failure = failure_of(text);
    EXPECT_EQ(failure.kind, Kind::kInvalidUtf8) << failure.message;
    EXPECT_EQ(failure.message.rfind("frame is not valid UTF-8 (byte offset ", 0), 0u);
    EXPECT_EQ(failure.message.find('\xFF'), std::string::npos);
  }
  EXPECT_EQ(failure_of("{\"name\":\"ab\xFF\"}").message,
            "frame is not valid UTF-8 (byte offset 11)");
}

TEST(BoundedJson, PartialTreeKeepsWhatCameBeforeALimit) {
  const JsonParseFailure failure =
      failure_of(R"({"id":7,"type":"move","move":)" + nested_objects(40) + "}");
  EXPECT_EQ(failure.kind, Kind::kTooDeep);
  EXPECT_EQ(failure.partial["id"], 7);
  EXPECT_EQ(failure.partial["type"], "move");
}

}  // namespace
}  // namespace parlor::protocol
