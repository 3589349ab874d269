#include "server/config.h"

#include "server/config_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace parlor::server {
namespace {

std::optional<ServerConfig> parse(std::vector<const char*> args, std::string& error) {
  args.insert(args.begin(), "parlor-server");
  bool help = false;
  return parse_config(static_cast<int>(args.size()), args.data(), error, help);
}

// An environment variable set for one scope (the tests run one at a time, single-threaded).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  }
  ~ScopedEnv() { ::unsetenv(name_); }  // NOLINT(concurrency-mt-unsafe)
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

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
  std::optional<ServerConfig> from_env;
  {
    const ScopedEnv store("PARLOR_STORE", "postgres://parlor:pw@db/parlor");
    from_env = parse({}, error);
  }
  ASSERT_TRUE(from_env) << error;
  EXPECT_EQ(from_env->store, "postgres://parlor:pw@db/parlor");
  // A refused value is shown without its password.
  EXPECT_FALSE(parse({"--store", "mysql://parlor:hunter2@db/parlor"}, error));
  EXPECT_NE(error.find("bad value for --store: \"mysql://parlor:***@db/parlor\""),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  {
    const ScopedEnv store("PARLOR_STORE", "mysql://parlor:hunter2@db/parlor");
    EXPECT_FALSE(parse({}, error));
  }
  EXPECT_NE(error.find("bad value for PARLOR_STORE: \"mysql://parlor:***@db/parlor\""),
            std::string::npos)
      << error;
}

TEST(Config, EnginesAreRepeatableAndListedInTheEnvironment) {
  std::string error;
  std::optional<ServerConfig> config;
  {
    const ScopedEnv engines("PARLOR_ENGINE",
                            "whist=http://127.0.0.1:9001/api/v1/whist,eights=http://h:1");
    config = parse({"--engine", "go-fish=http://127.0.0.1:9002", "--engine-timeout-ms=250"}, error);
  }
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

TEST(Config, TrustedProxiesAreRepeatableListedAndChecked) {
  std::string error;
  auto none = parse({}, error);
  ASSERT_TRUE(none) << error;
  EXPECT_TRUE(none->trusted_proxies.empty());
  std::optional<ServerConfig> config;
  {
    const ScopedEnv proxies("PARLOR_TRUSTED_PROXY", "10.0.0.5, fd00::/8");
    config = parse({"--trusted-proxy", "127.0.0.1", "--trusted-proxy=192.168.0.0/16"}, error);
  }
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->trusted_proxies,
            (std::vector<std::string>{"10.0.0.5", "fd00::/8", "127.0.0.1", "192.168.0.0/16"}));
  for (const char* bad : {"proxy.example", "10.0.0.5/24", "10.0.0.0/33", "1.2.3", ",", ""}) {
    EXPECT_FALSE(parse({"--trusted-proxy", bad}, error)) << bad;
    EXPECT_EQ(error, std::string("bad value for --trusted-proxy: \"") + bad + "\"") << error;
  }
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

TEST(Config, TokenIdlePeriod) {
  std::string error;
  auto defaults = parse({}, error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(defaults->token_idle, std::chrono::hours(24 * 30));
  auto never = parse({"--token-idle-s", "0"}, error);
  ASSERT_TRUE(never) << error;
  EXPECT_EQ(never->token_idle.count(), 0);
  auto short_period = parse({"--token-idle-s=90"}, error);
  ASSERT_TRUE(short_period) << error;
  EXPECT_EQ(short_period->token_idle, std::chrono::seconds(90));
  EXPECT_FALSE(parse({"--token-idle-s", "-1"}, error));
  EXPECT_NE(error.find("--token-idle-s"), std::string::npos) << error;
}

TEST(Config, QuickPlayRatingBand) {
  std::string error;
  auto defaults = parse({}, error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(defaults->quick_play_rating_band, 100);
  EXPECT_EQ(defaults->quick_play_rating_band_growth, 10);
  EXPECT_EQ(defaults->quick_play_rating_band_max, 400);
  auto set = parse({"--quick-play-rating-band", "50", "--quick-play-rating-band-growth=2.5",
                    "--quick-play-rating-band-max", "0"},
                   error);
  ASSERT_TRUE(set) << error;
  EXPECT_EQ(set->quick_play_rating_band, 50);
  EXPECT_EQ(set->quick_play_rating_band_growth, 2.5);
  EXPECT_EQ(set->quick_play_rating_band_max, 0);
  EXPECT_FALSE(parse({"--quick-play-rating-band-growth", "-1"}, error));
  EXPECT_NE(error.find("--quick-play-rating-band-growth"), std::string::npos) << error;
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

TEST(Config, LogFormatAndLevel) {
  std::string error;
  auto defaults = parse({}, error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(defaults->log_format, LogFormat::kText);
  EXPECT_EQ(defaults->log_level, LogLevel::kInfo);
  auto config = parse({"--log-format", "json", "--log-level=debug"}, error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->log_format, LogFormat::kJson);
  EXPECT_EQ(config->log_level, LogLevel::kDebug);
  for (const char* level : {"info", "warn", "error"}) {
    EXPECT_TRUE(parse({"--log-level", level}, error)) << level << ": " << error;
  }
  EXPECT_FALSE(parse({"--log-format", "JSON"}, error));
  EXPECT_NE(error.find("--log-format"), std::string::npos) << error;
  EXPECT_FALSE(parse({"--log-level", "trace"}, error));
  EXPECT_NE(error.find("--log-level"), std::string::npos) << error;
}

TEST(Config, EnvironmentIsOverriddenByFlags) {
  std::string error;
  std::optional<ServerConfig> from_env;
  std::optional<ServerConfig> from_flag;
  {
    const ScopedEnv port("PARLOR_PORT", "9001");
    from_env = parse({}, error);
    from_flag = parse({"--port", "9002"}, error);
  }
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

// A config file under the temporary directory, removed with the object.
class TempConfig {
 public:
  explicit TempConfig(const std::string& text) {
    static int count = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("parlor-config-test-" + std::to_string(::getpid()) + "-" + std::to_string(++count) +
             ".conf");
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempConfig() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempConfig(const TempConfig&) = delete;
  TempConfig& operator=(const TempConfig&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(ConfigFile, SplitsKeyValueLines) {
  std::string error;
  const auto lines = parse_config_file_text(
      "# a comment\n\n  port = 9000  \r\n\tstore=postgres://u:p#w=d@db/x\n   # indented\n"
      "allowed-origins = https://a.example, https://b.example\nbind =\n",
      "f.conf", error);
  ASSERT_TRUE(lines) << error;
  ASSERT_EQ(lines->size(), 4U);
  EXPECT_EQ((*lines)[0].line, 3);
  EXPECT_EQ((*lines)[0].key, "port");
  EXPECT_EQ((*lines)[0].value, "9000");
  // Neither `#` nor `=` ends a value: a password may hold them.
  EXPECT_EQ((*lines)[1].value, "postgres://u:p#w=d@db/x");
  EXPECT_EQ((*lines)[2].line, 6);
  EXPECT_EQ((*lines)[2].value, "https://a.example, https://b.example");
  EXPECT_EQ((*lines)[3].key, "bind");
  EXPECT_EQ((*lines)[3].value, "");
}

TEST(ConfigFile, SyntaxErrorsNameTheFileAndLine) {
  std::string error;
  EXPECT_FALSE(parse_config_file_text("port = 1\n\nport 9000\n", "f.conf", error));
  EXPECT_EQ(error.rfind("f.conf:3: expected KEY = VALUE", 0), 0U) << error;
  EXPECT_FALSE(parse_config_file_text("max rooms = 3\n", "f.conf", error));
  EXPECT_EQ(error.rfind("f.conf:1: ", 0), 0U) << error;
  EXPECT_FALSE(parse_config_file_text(" = 3\n", "f.conf", error));
  EXPECT_EQ(error.rfind("f.conf:1: ", 0), 0U) << error;
}

TEST(ConfigFile, IsALayerUnderTheEnvironmentAndTheFlags) {
  const TempConfig file(
      "port = 9001\nthreads = 2\nrate-burst = 50\nbind = 0.0.0.0\ndata-dir = /srv/parlor\n");
  std::string error;
  auto from_file = parse({"--config", file.path().c_str()}, error);
  ASSERT_TRUE(from_file) << error;
  EXPECT_EQ(from_file->port, 9001);
  EXPECT_EQ(from_file->threads, 2);
  EXPECT_EQ(from_file->rate_burst, 50);
  EXPECT_EQ(from_file->bind, "0.0.0.0");
  EXPECT_EQ(from_file->data_dir, "/srv/parlor");
  EXPECT_EQ(from_file->rate_per_second, 20);  // not in the file: the default

  // The environment over the file, the flags over both, wherever --config stands.
  std::optional<ServerConfig> layered;
  {
    const ScopedEnv port("PARLOR_PORT", "9002");
    const ScopedEnv threads("PARLOR_THREADS", "4");
    layered = parse({"--threads", "3", ("--config=" + file.path()).c_str()}, error);
  }
  ASSERT_TRUE(layered) << error;
  EXPECT_EQ(layered->port, 9002);
  EXPECT_EQ(layered->threads, 3);
  EXPECT_EQ(layered->rate_burst, 50);

  const TempConfig retention("token-idle-s = 604800\n");
  auto week = parse({"--config", retention.path().c_str()}, error);
  ASSERT_TRUE(week) << error;
  EXPECT_EQ(week->token_idle, std::chrono::hours(24 * 7));
}

TEST(ConfigFile, NamedByTheEnvironmentOrTheLastFlag) {
  const TempConfig first("port = 9001\n");
  const TempConfig second("port = 9002\n");
  std::string error;
  std::optional<ServerConfig> from_env;
  std::optional<ServerConfig> from_flag;
  {
    const ScopedEnv config("PARLOR_CONFIG", first.path());
    from_env = parse({}, error);
    from_flag = parse({"--config", second.path().c_str()}, error);
  }
  ASSERT_TRUE(from_env && from_flag) << error;
  EXPECT_EQ(from_env->port, 9001);
  EXPECT_EQ(from_flag->port, 9002);
  auto last = parse({"--config", first.path().c_str(), "--config", second.path().c_str()}, error);
  ASSERT_TRUE(last) << error;
  EXPECT_EQ(last->port, 9002);
}

TEST(ConfigFile, UnknownKeysAndBadValuesNameTheKeyAndLine) {
  const TempConfig typo("# settings\nport = 9001\nprot = 9002\n");
  std::string error;
  EXPECT_FALSE(parse({"--config", typo.path().c_str()}, error));
  EXPECT_EQ(error.rfind(typo.path() + ":3: unknown key \"prot\"", 0), 0U) << error;

  // The environment's names and the flags' dashes are not keys.
  for (const char* key : {"PARLOR_PORT", "--port", "max_rooms"}) {
    const TempConfig wrong(std::string(key) + " = 1\n");
    EXPECT_FALSE(parse({"--config", wrong.path().c_str()}, error)) << key;
    EXPECT_NE(error.find("unknown key"), std::string::npos) << error;
  }

  const TempConfig bad("\nmax-queue-messages = lots\n");
  EXPECT_FALSE(parse({"--config", bad.path().c_str()}, error));
  EXPECT_EQ(error, bad.path() + ":2: bad value for max-queue-messages: \"lots\"");

  // A flag given on the command line does not excuse a bad line under it.
  EXPECT_FALSE(parse({"--config", bad.path().c_str(), "--max-queue-messages", "8"}, error));

  const TempConfig twice("port = 1\nport = 2\n");
  EXPECT_FALSE(parse({"--config", twice.path().c_str()}, error));
  EXPECT_EQ(error, twice.path() + ":2: port is set twice");

  const TempConfig nested("config = /etc/other.conf\n");
  EXPECT_FALSE(parse({"--config", nested.path().c_str()}, error));
  EXPECT_NE(error.find(":1: "), std::string::npos) << error;

  // Checks across settings still apply to what the file set.
  const TempConfig half_tls("tls-cert = a.pem\n");
  EXPECT_FALSE(parse({"--config", half_tls.path().c_str()}, error));
  EXPECT_NE(error.find("go together"), std::string::npos) << error;
}

TEST(ConfigFile, PasswordsAreNotShownInErrors) {
  const TempConfig file("store = mysql://parlor:hunter2@db/parlor\n");
  std::string error;
  EXPECT_FALSE(parse({"--config", file.path().c_str()}, error));
  EXPECT_NE(error.find(":1: bad value for store: \"mysql://parlor:***@db/parlor\""),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
}

TEST(ConfigFile, SwitchesAndRepeatableEngines) {
  const TempConfig file(
      "dev = true\nengine = whist=http://127.0.0.1:9001/w\nengine = eights=http://h:1\n");
  std::string error;
  auto config = parse({"--config", file.path().c_str()}, error);
  ASSERT_TRUE(config) << error;
  EXPECT_TRUE(config->dev);
  ASSERT_EQ(config->engines.size(), 2U);
  EXPECT_EQ(config->engines[1].name, "eights");

  // PARLOR_DEV=0 is a layer over the file that turns the switch off.
  std::optional<ServerConfig> off;
  {
    const ScopedEnv dev("PARLOR_DEV", "0");
    off = parse({"--config", file.path().c_str()}, error);
  }
  ASSERT_TRUE(off) << error;
  EXPECT_FALSE(off->dev);

  const TempConfig maybe("dev = maybe\n");
  EXPECT_FALSE(parse({"--config", maybe.path().c_str()}, error));
  EXPECT_EQ(error, maybe.path() + ":1: bad value for dev: \"maybe\" (true or false)");
}

TEST(ConfigFile, TrustedProxyLinesAddUp) {
  const TempConfig file("trusted-proxy = 10.0.0.5\ntrusted-proxy = 10.1.0.0/16, ::1\n");
  std::string error;
  auto config = parse({"--config", file.path().c_str()}, error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->trusted_proxies, (std::vector<std::string>{"10.0.0.5", "10.1.0.0/16", "::1"}));
  const TempConfig bad("trusted-proxy = nginx.local\n");
  EXPECT_FALSE(parse({"--config", bad.path().c_str()}, error));
  EXPECT_EQ(error, bad.path() + ":1: bad value for trusted-proxy: \"nginx.local\"");
}

TEST(ConfigFile, AMissingFileOrADirectoryStopsTheStart) {
  std::string error;
  EXPECT_FALSE(parse({"--config", "/nonexistent/parlor.conf"}, error));
  EXPECT_NE(error.find("cannot read config file /nonexistent/parlor.conf"), std::string::npos)
      << error;
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_FALSE(parse({"--config", dir.c_str()}, error));
  EXPECT_NE(error.find("directory"), std::string::npos) << error;
  EXPECT_FALSE(parse({"--config"}, error));
  EXPECT_NE(error.find("needs a value"), std::string::npos) << error;
}

TEST(ConfigFile, TheAdminTokenIsReadFromItsFileByFlagOrConfigFile) {
  const TempConfig token("  the-admin-token-longer-than-a-small-string \n");
  std::string error;
  EXPECT_TRUE(parse({}, error)->admin_token.empty()) << "no flag: no admin API";
  const auto by_flag = parse({"--admin-token-file", token.path().c_str()}, error);
  ASSERT_TRUE(by_flag) << error;
  EXPECT_EQ(by_flag->admin_token_file, token.path());
  EXPECT_EQ(by_flag->admin_token, "the-admin-token-longer-than-a-small-string")
      << "the blanks around it are not the token";

  const TempConfig file("admin-token-file = " + token.path() + "\n");
  const auto by_file = parse({"--config", file.path().c_str()}, error);
  ASSERT_TRUE(by_file) << error;
  EXPECT_EQ(by_file->admin_token, "the-admin-token-longer-than-a-small-string");

  const TempConfig empty(" \n\t\n");
  EXPECT_FALSE(parse({"--admin-token-file", empty.path().c_str()}, error));
  EXPECT_NE(error.find("is empty"), std::string::npos) << error;
  EXPECT_FALSE(parse({"--admin-token-file", "/nonexistent/parlor-admin-token"}, error));
  EXPECT_NE(error.find("/nonexistent/parlor-admin-token"), std::string::npos) << error;
  EXPECT_EQ(error.find("the-admin-token"), std::string::npos) << "never the token itself";
}

TEST(ConfigFile, HelpNeedsNoReadableFile) {
  std::string error;
  bool help = false;
  std::vector<const char*> args = {"parlor-server", "--config", "/nonexistent", "--help"};
  EXPECT_TRUE(parse_config(static_cast<int>(args.size()), args.data(), error, help));
  EXPECT_TRUE(help);
  EXPECT_NE(usage().find("--config VALUE"), std::string::npos);
  EXPECT_NE(usage().find("[PARLOR_CONFIG]"), std::string::npos);
}

}  // namespace
}  // namespace parlor::server
