#include "bots/net/bot_options.h"

#include <gtest/gtest.h>

#include <vector>

namespace parlor::client {
namespace {

std::optional<BotOptions> parse(std::vector<const char*> args, std::string& error) {
  args.insert(args.begin(), "parlor-bot");
  return parse_bot_options(static_cast<int>(args.size()), args.data(), error);
}

TEST(BotOptions, CreateWithEverything) {
  std::string error;
  auto options = parse({"--create",      "bigtwo",     "--seats",      "2",          "--options",
                        R"({"seed":7})", "--strategy", "greedy",       "--think-ms", "50",
                        "--seed",        "9",          "--games",      "3",          "--rematch",
                        "--max-seconds", "30",         "--token-file", "/tmp/t",     "--quiet"},
                       error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->create_kind, "bigtwo");
  EXPECT_EQ(options->seats, 2);
  EXPECT_EQ(options->room_options["seed"], 7);
  EXPECT_EQ(options->strategy, "greedy");
  EXPECT_EQ(options->think_ms, 50);
  EXPECT_EQ(options->seed, 9u);
  EXPECT_EQ(options->games, 3);
  EXPECT_TRUE(options->rematch);
  EXPECT_DOUBLE_EQ(options->max_seconds, 30);
  EXPECT_EQ(options->token_file, "/tmp/t");
  EXPECT_TRUE(options->quiet);
}

TEST(BotOptions, JoinDefaults) {
  std::string error;
  auto options = parse({"--room", "abc", "--seat", "1"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->room, "abc");
  EXPECT_EQ(options->seat, 1);
  EXPECT_EQ(options->games, 1);
  EXPECT_EQ(options->strategy, "random");
  EXPECT_DOUBLE_EQ(options->max_seconds, 600);
}

TEST(BotOptions, RefusesContradictionsAndJunk) {
  std::string error;
  EXPECT_FALSE(parse({}, error));  // neither --room nor --create
  EXPECT_FALSE(parse({"--room", "a", "--create", "bigtwo"}, error));
  EXPECT_FALSE(parse({"--room", "a", "--seats", "2"}, error));
  EXPECT_FALSE(parse({"--create", "bigtwo", "--seat", "1"}, error));
  EXPECT_FALSE(parse({"--create", "bigtwo", "--options", "[1]"}, error));
  EXPECT_FALSE(parse({"--room", "a", "--think-ms", "12abc"}, error));
  EXPECT_FALSE(parse({"--room", "a", "--seed", "-1"}, error));
  EXPECT_FALSE(parse({"--room", "a", "--max-seconds", "0"}, error));
  EXPECT_FALSE(parse({"--room", "a", "--bogus"}, error));
  EXPECT_NE(error.find("--bogus"), std::string::npos);
  EXPECT_FALSE(parse({"--room"}, error));
  EXPECT_NE(error.find("needs a value"), std::string::npos);
}

TEST(BotOptions, HelpIsNotAnError) {
  std::string error = "x";
  EXPECT_FALSE(parse({"--help"}, error));
  EXPECT_TRUE(error.empty());
}

}  // namespace
}  // namespace parlor::client
