#include "server/config.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace parlor::server {
namespace {

std::optional<ServerConfig> parse(std::vector<const char*> args, std::string& error) {
  args.insert(args.begin(), "parlor-server");
  bool help = false;
  return parse_config(static_cast<int>(args.size()), args.data(), error, help);
}

TEST(Config, DefaultsMatchTheSecurityTable) {
  std::string error;
  auto config = parse({}, error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->max_message_bytes, 16U * 1024);
  EXPECT_EQ(config->max_queue_messages, 64U);
  EXPECT_EQ(config->max_queue_bytes, 256U * 1024);
  EXPECT_EQ(config->rate_per_second, 20);
  EXPECT_EQ(config->rate_burst, 40);
  EXPECT_EQ(config->max_connections_per_ip, 64);
  EXPECT_EQ(config->bind, "127.0.0.1");
  EXPECT_FALSE(config->dev);
}

TEST(Config, FlagsAndEquals) {
  std::string error;
  auto config = parse({"--port", "0", "--dev", "--threads=3", "--rate-per-second", "1000"}, error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->port, 0);
  EXPECT_TRUE(config->dev);
  EXPECT_EQ(config->threads, 3);
  EXPECT_EQ(config->rate_per_second, 1000);
}

TEST(Config, StoreDurabilityAndGroupCommit) {
  std::string error;
  auto defaults = parse({}, error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(defaults->store_sync, ServerConfig::StoreSync::kFull);
  EXPECT_EQ(defaults->store_batch_window, std::chrono::microseconds(500));
  auto config = parse({"--store-sync", "normal", "--store-batch-us", "500"}, error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->store_sync, ServerConfig::StoreSync::kNormal);
  EXPECT_EQ(config->store_batch_window, std::chrono::microseconds(500));
  EXPECT_FALSE(parse({"--store-sync", "off"}, error));
  EXPECT_NE(error.find("--store-sync"), std::string::npos);
  EXPECT_FALSE(parse({"--store-batch-us", "-1"}, error));
}

TEST(Config, StoreBackends) {
  std::string error;
  for (const char* store :
       {"sqlite", "none", "postgres://parlor:pw@db:5432/parlor", "postgresql://parlor@db/parlor"}) {
    auto config = parse({"--store", store}, error);
    ASSERT_TRUE(config) << store << ": " << error;
    EXPECT_EQ(config->store, store);
  }
  ::setenv("PARLOR_STORE", "postgres://parlor:pw@db/parlor", 1);
  auto from_env = parse({}, error);
  ::unsetenv("PARLOR_STORE");
  ASSERT_TRUE(from_env) << error;
  EXPECT_EQ(from_env->store, "postgres://parlor:pw@db/parlor");
  // A refused value is shown without its password.
  EXPECT_FALSE(parse({"--store", "mysql://parlor:hunter2@db/parlor"}, error));
  EXPECT_NE(error.find("bad value for --store: \"mysql://parlor:***@db/parlor\""),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  ::setenv("PARLOR_STORE", "mysql://parlor:hunter2@db/parlor", 1);
  EXPECT_FALSE(parse({}, error));
  ::unsetenv("PARLOR_STORE");
  EXPECT_NE(error.find("bad value for PARLOR_STORE: \"mysql://parlor:***@db/parlor\""),
            std::string::npos)
      << error;
}

TEST(Config, EnginesAreRepeatableAndListedInTheEnvironment) {
  std::string error;
  ::setenv("PARLOR_ENGINE", "whist=http://127.0.0.1:9001/api/v1/whist,eights=http://h:1", 1);
  auto config =
      parse({"--engine", "go-fish=http://127.0.0.1:9002", "--engine-timeout-ms=250"}, error);
  ::unsetenv("PARLOR_ENGINE");
  ASSERT_TRUE(config) << error;
  ASSERT_EQ(config->engines.size(), 3U);
  EXPECT_EQ(config->engines[0].name, "whist");
  EXPECT_EQ(config->engines[0].url, "http://127.0.0.1:9001/api/v1/whist");
  EXPECT_EQ(config->engines[2].name, "go-fish");
  EXPECT_EQ(config->engine_timeout, std::chrono::milliseconds(250));
  for (const char* bad : {"nourl", "=http://h:1", "Whist=http://h:1", "whist="}) {
    EXPECT_FALSE(parse({"--engine", bad}, error)) << bad;
    EXPECT_NE(error.find("--engine"), std::string::npos) << error;
  }
  EXPECT_FALSE(parse({"--engine", "a=http://h:1", "--engine", "a=http://h:2"}, error));
}

TEST(Config, ReplayRetention) {
  std::string error;
  auto defaults = parse({}, error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(defaults->replay_retention, std::chrono::hours(24 * 30));
  auto forever = parse({"--replay-retention-hours", "0"}, error);
  ASSERT_TRUE(forever) << error;
  EXPECT_EQ(forever->replay_retention.count(), 0);
  // Shorter than finished rooms are kept in memory: a rematch could lose its record.
  EXPECT_FALSE(
      parse({"--replay-retention-hours", "1", "--finished-room-retention-s", "7200"}, error));
  EXPECT_NE(error.find("--replay-retention-hours"), std::string::npos);
}

// A cluster node drains by default (long enough for two of the proxy's health checks); a
// single server does not, unless told.
TEST(Config, DrainDefaultsByModeAndFlag) {
  using std::chrono::milliseconds;
  std::string error;
  auto single = parse({}, error);
  ASSERT_TRUE(single) << error;
  EXPECT_FALSE(single->drain);
  EXPECT_EQ(drain_period(*single), milliseconds(0));
  auto node = parse({"--store", "postgres://p@db/p", "--cluster", "redis://127.0.0.1:6379"}, error);
  ASSERT_TRUE(node) << error;
  EXPECT_EQ(drain_period(*node), milliseconds(2000));
  auto quick = parse(
      {"--store", "postgres://p@db/p", "--cluster", "redis://127.0.0.1:6379", "--drain-ms", "0"},
      error);
  ASSERT_TRUE(quick) << error;
  ASSERT_TRUE(quick->drain);
  EXPECT_EQ(drain_period(*quick), milliseconds(0));
  ::setenv("PARLOR_DRAIN_MS", "750", 1);
  auto from_env = parse({}, error);
  ::unsetenv("PARLOR_DRAIN_MS");
  ASSERT_TRUE(from_env) << error;
  EXPECT_EQ(drain_period(*from_env), milliseconds(750));
  for (const char* bad : {"-1", "600001", "2s", ""}) {
    EXPECT_FALSE(parse({"--drain-ms", bad}, error)) << bad;
    EXPECT_NE(error.find("--drain-ms"), std::string::npos) << error;
  }
}

TEST(Config, EnvironmentIsOverriddenByFlags) {
  ::setenv("PARLOR_PORT", "9001", 1);
  std::string error;
  auto from_env = parse({}, error);
  auto from_flag = parse({"--port", "9002"}, error);
  ::unsetenv("PARLOR_PORT");
  ASSERT_TRUE(from_env && from_flag);
  EXPECT_EQ(from_env->port, 9001);
  EXPECT_EQ(from_flag->port, 9002);
}

TEST(Config, BadValuesSayWhich) {
  std::string error;
  EXPECT_FALSE(parse({"--port", "70000"}, error));
  EXPECT_NE(error.find("--port"), std::string::npos);
  EXPECT_FALSE(parse({"--nope"}, error));
  EXPECT_NE(error.find("unknown flag --nope"), std::string::npos);
  EXPECT_FALSE(parse({"--threads"}, error));
  EXPECT_NE(error.find("needs a value"), std::string::npos);
  EXPECT_FALSE(parse({"--tls-cert", "a.pem"}, error));
  EXPECT_NE(error.find("go together"), std::string::npos);
}

}  // namespace
}  // namespace parlor::server
