#include "games/core/options.h"

#include <gtest/gtest.h>

namespace parlor {
namespace {

std::vector<OptionSpec> specs() {
  return {OptionSpec::integer("deals", 1, 1, 20, "deals to play"),
          OptionSpec::choice("order", {{"standard", "reference"}, {"other", "a variant"}}, "order"),
          OptionSpec::boolean("flag", false, "a flag")};
}

TEST(Options, DefaultsAreFilledIn) {
  std::string error;
  auto out = normalize_options(specs(), Json(), error);
  ASSERT_TRUE(out) << error;
  EXPECT_EQ((*out)["deals"], 1);
  EXPECT_EQ((*out)["order"], "standard");
  EXPECT_EQ((*out)["flag"], false);
}

TEST(Options, GivenValuesAreKept) {
  std::string error;
  auto out = normalize_options(specs(), Json{{"deals", 3}, {"order", "other"}}, error);
  ASSERT_TRUE(out) << error;
  EXPECT_EQ((*out)["deals"], 3);
  EXPECT_EQ((*out)["order"], "other");
}

TEST(Options, BadValuesNameTheOption) {
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json{{"deals", 0}}, "between 1 and 20"},
      {Json{{"deals", 21}}, "between 1 and 20"},
      {Json{{"deals", 1e300}}, "must be an integer"},
      {Json{{"deals", 18446744073709551615ULL}}, "between"},
      {Json{{"deals", -9223372036854775807LL}}, "between"},
      {Json{{"deals", "3"}}, "must be an integer"},
      {Json{{"order", "nope"}}, "must be one of \"standard\", \"other\""},
      {Json{{"flag", 1}}, "true or false"},
      {Json{{"unknown", 1}}, "unknown option \"unknown\""},
      {Json::array(), "must be an object"},
  };
  for (const auto& [given, expected] : cases) {
    std::string error;
    EXPECT_FALSE(normalize_options(specs(), given, error)) << given.dump();
    EXPECT_NE(error.find(expected), std::string::npos) << given.dump() << " -> " << error;
  }
}

TEST(Options, SchemaListsTypesDefaultsAndChoices) {
  const Json schema = options_schema_json(specs());
  EXPECT_EQ(schema["deals"]["type"], "integer");
  EXPECT_EQ(schema["deals"]["max"], 20);
  EXPECT_EQ(schema["order"]["choices"][1]["value"], "other");
  EXPECT_EQ(schema["order"]["variant"], true);
}

}  // namespace
}  // namespace parlor
