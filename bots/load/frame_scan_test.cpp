// The frame scan must agree with a full parse on every frame it claims to understand, and
// refuse (so that the caller parses in full) whatever it cannot read for certain.
#include "bots/load/frame_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "games/core/game.h"

namespace parlor::load {
namespace {

// A Big Two state frame as the server writes it (protocol/encode.cpp's encode_state).
constexpr std::string_view kState =
    R"({"type":"state","room":"6630cfda71","seq":12,"view":{"deal":1,"hand":["3D","5D","5H"],)"
    R"("hand_counts":[13,13,13,13],"last_deal":null,"passed":[],"scores":[0,0,0,0],)"
    R"("table":null,"turn":2,"you":2},"to_act":[2],)"
    R"("prompt":{"actions":["play"],"legal":[{"action":"play","cards":["3D"]}]},)"
    R"("events":[{"type":"start"}]})";

// Scans `text` and checks the result against nlohmann's reading of it.
void expect_agrees_with_full_parse(std::string_view text) {
  const Json message = Json::parse(text);
  const std::optional<FrameFields> fields = scan_frame(text);
  ASSERT_TRUE(fields.has_value()) << text;
  EXPECT_EQ(fields->type, message.value("type", "")) << text;
  if (message.contains("seq")) {
    ASSERT_TRUE(fields->seq.has_value()) << text;
    EXPECT_EQ(*fields->seq, message["seq"].get<std::int64_t>()) << text;
  } else {
    EXPECT_FALSE(fields->seq.has_value()) << text;
  }
  if (message.contains("code")) {
    ASSERT_TRUE(fields->code.has_value()) << text;
    EXPECT_EQ(*fields->code, message["code"].get<std::string>()) << text;
  } else {
    EXPECT_FALSE(fields->code.has_value()) << text;
  }
  if (message.contains("prompt") && !message["prompt"].is_null()) {
    EXPECT_EQ(Json::parse(fields->prompt), message["prompt"]) << text;
  } else {
    EXPECT_TRUE(fields->prompt.empty()) << text;
  }
}

TEST(FrameScan, FindsTheFieldsOfAStateFrame) {
  const std::optional<FrameFields> fields = scan_frame(kState);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->type, "state");
  EXPECT_EQ(fields->seq, 12);
  EXPECT_FALSE(fields->code.has_value());
  EXPECT_EQ(fields->prompt, R"({"actions":["play"],"legal":[{"action":"play","cards":["3D"]}]})");
  expect_agrees_with_full_parse(kState);
}

TEST(FrameScan, FindsTheFieldsOfOkAndErrorFrames) {
  const auto ok = scan_frame(R"({"type":"ok","seq":7})");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->type, "ok");
  EXPECT_EQ(ok->seq, 7);
  const auto bare_ok = scan_frame(R"({"type":"ok","re":"r1"})");
  ASSERT_TRUE(bare_ok.has_value());
  EXPECT_FALSE(bare_ok->seq.has_value());
  const auto error = scan_frame(R"({"code":"stale_seq","message":"seq is 4","type":"error"})");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->type, "error");
  EXPECT_EQ(error->code, "stale_seq");
  EXPECT_TRUE(error->prompt.empty());
  const auto negative = scan_frame(R"({"seq":-3})");
  ASSERT_TRUE(negative.has_value());
  EXPECT_EQ(negative->seq, -3);
  EXPECT_TRUE(negative->type.empty());
  EXPECT_TRUE(scan_frame("{}").has_value());
}

TEST(FrameScan, KeyOrderDoesNotMatter) {
  const Json state = Json::parse(kState);
  std::vector<std::pair<std::string, std::string>> members;
  for (const auto& [key, value] : state.items()) members.emplace_back(key, value.dump());
  std::sort(members.begin(), members.end());
  int orders = 0;
  do {
    std::string text = "{";
    for (const auto& [key, value] : members) {
      if (text.size() > 1) text += ',';
      text += Json(key).dump() + ':' + value;
    }
    text += '}';
    expect_agrees_with_full_parse(text);
    ++orders;
  } while (std::next_permutation(members.begin(), members.end()));
  EXPECT_EQ(orders, 5040);  // every order of the seven members
}

TEST(FrameScan, StringsWithEscapesQuotesAndBracesAreSteppedOver) {
  const std::string_view text =
      R"({"view":{"name":"a\"}]{[\\","note\"}":"\\\\"},"chat":"\"type\":\"error\"",)"
      R"("prompt":{"legal":["}\"{[",{"a":"\u00e9\/"}]},"type":"state","seq":5})";
  const std::optional<FrameFields> fields = scan_frame(text);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->type, "state");
  EXPECT_EQ(fields->seq, 5);
  EXPECT_EQ(fields->prompt, R"({"legal":["}\"{[",{"a":"\u00e9\/"}]})");
  expect_agrees_with_full_parse(text);
}

TEST(FrameScan, NestedArraysAndObjectsAreSteppedOver) {
  const std::string_view text =
      R"({"view":[[[{"seq":1,"type":"x","prompt":{}}],[]],{"a":[{"b":[[]]}]}],)"
      R"( "events" : [ {"type":"play","seq":[2]} , null ] ,"type" : "state" , "seq" : 9 ,)"
      "\n\t\"prompt\":\r\n[ 1 , true , false , null , -2.5e3 ] }\n";
  const std::optional<FrameFields> fields = scan_frame(text);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->type, "state");
  EXPECT_EQ(fields->seq, 9);
  EXPECT_EQ(fields->prompt, "[ 1 , true , false , null , -2.5e3 ]");
  expect_agrees_with_full_parse(text);
}

TEST(FrameScan, NullAndAbsentPromptsAreEmptyAndAnyOtherValueIsItsText) {
  const auto null_prompt = scan_frame(R"({"type":"state","seq":1,"prompt":null})");
  ASSERT_TRUE(null_prompt.has_value());
  EXPECT_TRUE(null_prompt->prompt.empty());
  const auto no_prompt = scan_frame(R"({"type":"state","seq":1})");
  ASSERT_TRUE(no_prompt.has_value());
  EXPECT_TRUE(no_prompt->prompt.empty());
  const auto empty_prompt = scan_frame(R"({"type":"state","seq":1,"prompt":{}})");
  ASSERT_TRUE(empty_prompt.has_value());
  EXPECT_EQ(empty_prompt->prompt, "{}");
  const auto string_prompt = scan_frame(R"({"prompt":"null"})");
  ASSERT_TRUE(string_prompt.has_value());
  EXPECT_EQ(string_prompt->prompt, R"("null")");
}

TEST(FrameScan, WhatItCannotReadForCertainIsNotUnderstood) {
  const std::string deep = R"({"view":)" + std::string(65, '[') + std::string(65, ']') + "}";
  const std::string within = R"({"view":)" + std::string(64, '[') + std::string(64, ']') + "}";
  EXPECT_TRUE(scan_frame(within).has_value());
  const std::vector<std::string> not_understood = {
      "",
      "   ",
      "[]",
      "null",
      R"("state")",
      "{",
      R"({"type":"state")",
      R"({"type":"state",})",
      R"({,"type":"state"})",
      R"({"type" "state"})",
      R"({"type":"state"} {})",
      R"({"type":"state"}x)",
      R"({"type":state})",
      R"({"type":1})",
      R"({"type":null})",
      R"({"type":"st\u0061te"})",  // the value may differ from the text
      R"({"t\u0079pe":"state"})",  // the key may be one of the fields
      R"({"code":"x\"y"})",
      R"({"code":3})",
      R"({"seq":"1"})",
      R"({"seq":1.5})",
      R"({"seq":1e3})",
      R"({"seq":01})",
      R"({"seq":-})",
      R"({"seq":null})",
      R"({"seq":99999999999999999999})",
      R"({"type":"a","type":"b"})",
      R"({"seq":1,"seq":2})",
      R"({"code":"a","code":"a"})",
      R"({"prompt":null,"prompt":{}})",
      R"({"view":[1,2}})",
      R"({"view":{"a":1]})",
      R"({"view":{"a":"unterminated}})",
      R"({"view":"bad \q escape"})",
      "{\"view\":\"raw\ncontrol\"}",
      "{\"view\":\"ends in a backslash\\",
      R"({"view":nul})",
      R"({"view":tru})",
      R"({"view":+1})",
      R"({"view":})",
      R"({"view":[[]})",
      deep,
  };
  for (const std::string& text : not_understood) {
    EXPECT_FALSE(scan_frame(text).has_value()) << text;
  }
}

// Single-byte edits of a real frame, biased to the characters that matter to the scan:
// whenever the edit leaves valid JSON that the scan still understands, they agree.
TEST(FrameScan, AgreesWithTheFullParseOnEditedFrames) {
  constexpr std::string_view kCharacters = R"("\{}[],:0123456789-.e ntuxl)";
  std::mt19937 random(7);
  int agreed = 0;
  for (int edit = 0; edit < 20000; ++edit) {
    std::string text(kState);
    const std::size_t at = random() % text.size();
    const char c = kCharacters[random() % kCharacters.size()];
    switch (random() % 3) {
      case 0:
        text.erase(at, 1);
        break;
      case 1:
        text.insert(at, 1, c);
        break;
      default:
        text[at] = c;
        break;
    }
    if (!scan_frame(text) || !Json::accept(text)) continue;
    expect_agrees_with_full_parse(text);
    ++agreed;
  }
  EXPECT_GT(agreed, 1000);
}

}  // namespace
}  // namespace parlor::load
