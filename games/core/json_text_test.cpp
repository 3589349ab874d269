#include "games/core/json_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace parlor {
namespace {

std::string written(std::string_view text) {
  std::string out = "prefix:";
  json_text::string(out, text);
  return out;
}

// The views promise nlohmann's exact bytes; strings are where escaping can differ.
TEST(JsonText, StringsAreEscapedExactlyAsDumpDoes) {
  std::string every_control;
  for (int c = 0; c < 0x20; ++c) every_control += static_cast<char>(c);
  const std::string samples[] = {
      "",
      "play",
      "say \"hi\"",
      "back\\slash",
      "\\\"\\\"",
      "line\nbreak\ttab\rreturn\bback\fform",
      every_control,
      "mid\x01"
      "dle\x1F"
      "end\x7F",
      "caf\xC3\xA9 \xE2\x99\xA0 \xF0\x9F\x83\x8F",
      std::string("nul\0inside", 10),
  };
  for (const std::string& text : samples) {
    EXPECT_EQ(written(text), "prefix:" + nlohmann::json(text).dump())
        << nlohmann::json(text).dump();
  }
}

TEST(JsonText, Values) {
  std::string out;
  json_text::key(out, "deal");
  json_text::integer(out, -9007199254740993);
  out += ',';
  json_text::boolean(out, true);
  out += ',';
  json_text::null(out);
  out += ',';
  json_text::card(out, Card(Rank::kTen, Suit::kSpades));
  json_text::card(out, Card::little_joker());
  EXPECT_EQ(out, "\"deal\":-9007199254740993,true,null,\"TS\"\"LJ\"");
}

}  // namespace
}  // namespace parlor
