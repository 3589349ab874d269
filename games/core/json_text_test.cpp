#include "games/core/json_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
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

// json_text::value writes what dump() writes, for every kind of value (the durable store
// writes each move with it). Random trees, seeded: PARLOR_TEST_SEED=N repeats a run.
nlohmann::json random_value(std::mt19937_64& rng, int depth) {
  const auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::string pieces[] = {
      "a", "play", "\"", "\\", "\n", "\x01", "\x7F", "caf\xC3\xA9", "\xF0\x9F\x83\x8F",
      " ", "{}",   "[1]"};
  const auto text = [&] {
    std::string out;
    for (int i = pick(4); i > 0; --i) out += pieces[pick(static_cast<int>(std::size(pieces)))];
    return out;
  };
  switch (depth > 3 ? pick(7) : pick(9)) {
    case 0:
      return nullptr;
    case 1:
      return pick(2) == 1;
    case 2:
      return static_cast<std::int64_t>(rng()) >> pick(64);
    case 3:
      return static_cast<std::uint64_t>(rng());
    case 4:
      return static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000) / 64.0;
    case 5:
      return text();
    case 6:
      return pick(5);
    case 7: {
      nlohmann::json out = nlohmann::json::array();
      for (int i = pick(4); i > 0; --i) out.push_back(random_value(rng, depth + 1));
      return out;
    }
    default: {
      nlohmann::json out = nlohmann::json::object();
      for (int i = pick(4); i > 0; --i) out[text()] = random_value(rng, depth + 1);
      return out;
    }
  }
}

TEST(JsonText, AnyValueIsWrittenAsDumpWritesIt) {
  const char* given = std::getenv("PARLOR_TEST_SEED");
  const std::uint64_t seed = given ? std::strtoull(given, nullptr, 10) : std::random_device{}();
  std::cout << "seed " << seed << " (PARLOR_TEST_SEED=" << seed << " repeats it)\n";
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 5000; ++i) {
    const nlohmann::json value = random_value(rng, 0);
    std::string out = "prefix:";
    json_text::value(out, value);
    ASSERT_EQ(out, "prefix:" + value.dump()) << "seed " << seed << ", value " << i;
  }
  const nlohmann::json move = {{"action", "play"}, {"cards", {"3C", "3D"}}, {"n", -7}};
  std::string out;
  json_text::value(out, move);
  EXPECT_EQ(out, R"({"action":"play","cards":["3C","3D"],"n":-7})");
}

// Text that is not UTF-8 is refused as dump() refuses it, not written.
TEST(JsonText, AValueWithInvalidUtf8IsRefusedLikeDump) {
  const nlohmann::json bad = {{"say", std::string("\xC3\x28")}};
  std::string out;
  EXPECT_THROW(json_text::value(out, bad), nlohmann::json::type_error);
  EXPECT_THROW((void)bad.dump(), nlohmann::json::type_error);
}

}  // namespace
}  // namespace parlor
