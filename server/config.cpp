#include "server/config.h"

#include "server/admin_api.h"
#include "server/cluster/redis_client.h"
#include "server/config_file.h"
#include "server/store/postgres_store.h"
#include "server/trusted_proxy.h"

#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace parlor::server {
namespace {

struct Flag {
  std::string help;
  std::function<bool(const std::string& value, ServerConfig& config)> set;
  bool is_switch = false;
};

template <typename T>
bool parse_number(const std::string& text, T& out, T min, T max) {
  T value{};
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) return false;
  out = value;
  return true;
}

bool parse_double(const std::string& text, double& out, double min, double max) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value >= min && value <= max)) {
    return false;
  }
  out = value;
  return true;
}

template <typename Rep, typename Period>
auto duration_flag(std::chrono::duration<Rep, Period> ServerConfig::*member, Rep max) {
  return [member, max](const std::string& v, ServerConfig& c) {
    Rep n{};
    if (!parse_number<Rep>(v, n, 0, max)) return false;
    c.*member = std::chrono::duration<Rep, Period>(n);
    return true;
  };
}

template <typename T>
auto number_flag(T ServerConfig::*member, T min, T max) {
  return [member, min, max](const std::string& v, ServerConfig& c) {
    return parse_number<T>(v, c.*member, min, max);
  };
}

// A flag's value as an error message may show it: a --store URL can hold a password.
std::string shown_value(const std::string& flag, const std::string& value) {
  if (flag == "store") return redact_store_url(value);
  if (flag == "cluster") return value.empty() ? value : "redis://(not shown)";
  return value;
}

// NAME=URL[,NAME=URL...]: the flag may be given several times, the variable lists them all.
bool add_engines(const std::string& value, ServerConfig& config) {
  std::stringstream in(value);
  std::string item;
  bool any = false;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) return false;
    const std::string name = item.substr(0, eq);
    if (name.size() > 32 ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos) {
      return false;
    }
    for (const EngineFlag& known : config.engines) {
      if (known.name == name) return false;
    }
    config.engines.push_back({name, item.substr(eq + 1)});
    any = true;
  }
  return any;
}

// ADDR[,ADDR...] of trusted proxies: the flag may be given several times, the variable and a
// config file line list them with commas.
bool add_trusted_proxies(const std::string& value, ServerConfig& config) {
  std::stringstream in(value);
  std::string item;
  bool any = false;
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    item = item.substr(first, item.find_last_not_of(" \t") - first + 1);
    if (!parse_proxy_network(item)) return false;
    config.trusted_proxies.push_back(item);
    any = true;
  }
  return any;
}

const std::map<std::string, Flag>& flags() {
  static const std::map<std::string, Flag> table = {
      // Read before every other setting (apply_config_file); here for --help and the checks.
      {"config",
       {"FILE of `flag-name = value` lines (docs/OPERATIONS.md, \"Config file\"); the "
        "environment and flags override it",
        [](const std::string& v, ServerConfig&) { return !v.empty(); }}},
      {"port",
       {"TCP port; 0 picks a free one (default 8080)",
        number_flag<std::uint16_t>(&ServerConfig::port, 0, 65535)}},
      {"bind",
       {"address to listen on (default 127.0.0.1; 0.0.0.0 for all interfaces)",
        [](const std::string& v, ServerConfig& c) {
          c.bind = v;
          return !v.empty();
        }}},
      {"threads",
       {"I/O threads (default: hardware threads)",
        number_flag<int>(&ServerConfig::threads, 0, 256)}},
      {"static-dir",
       {"directory of the web client served at / (default client-web/dist)",
        [](const std::string& v, ServerConfig& c) {
          c.static_dir = v;
          return true;
        }}},
      {"dev",
       {"development mode: allows the `seed` room option",
        [](const std::string& v, ServerConfig& c) {
          c.dev = v != "false";  // "" from the flag, "true"/"false" from switch_value
          return true;
        },
        true}},
      {"store",
       {"sqlite (durable, the default), postgres://USER:PASSWORD@HOST:PORT/DATABASE (durable, "
        "in PostgreSQL) or none (in memory; lost on exit)",
        [](const std::string& v, ServerConfig& c) {
          c.store = v;
          return v == "sqlite" || v == "none" || is_postgres_url(v);
        }}},
      {"store-sync",
       {"full (a move acknowledged survives a power loss; the default) or normal "
        "(survives a crash of the server, not of the machine)",
        [](const std::string& v, ServerConfig& c) {
          c.store_sync =
              v == "normal" ? ServerConfig::StoreSync::kNormal : ServerConfig::StoreSync::kFull;
          return v == "full" || v == "normal";
        }}},
      {"store-batch-us",
       {"group commit window of the store's writer (default 500)",
        duration_flag(&ServerConfig::store_batch_window, 1'000'000L)}},
      {"replay-retention-hours",
       {"keep finished games (replays) in the store for (default 720; "
        "0: forever)",
        duration_flag(&ServerConfig::replay_retention, 24L * 365 * 100)}},
      {"token-idle-s",
       {"a player away this long, in no room, loses its token and is forgotten (default "
        "2592000, 30 days; 0: never)",
        duration_flag(&ServerConfig::token_idle, 86'400L * 365 * 100)}},
      {"data-dir",
       {"directory of the SQLite store (default ./data; created if missing)",
        [](const std::string& v, ServerConfig& c) {
          c.data_dir = v;
          return !v.empty();
        }}},
      {"tls-cert",
       {"PEM certificate chain: serve https/wss",
        [](const std::string& v, ServerConfig& c) {
          c.tls_cert = v;
          return true;
        }}},
      {"tls-key",
       {"PEM private key for --tls-cert",
        [](const std::string& v, ServerConfig& c) {
          c.tls_key = v;
          return true;
        }}},
      {"max-message-bytes",
       {"largest WebSocket message (default 16384; closes with 1009)",
        number_flag<std::size_t>(&ServerConfig::max_message_bytes, 256, 1 << 24)}},
      {"max-http-header-bytes",
       {"largest HTTP request header (default 8192)",
        number_flag<std::size_t>(&ServerConfig::max_http_header_bytes, 1024, 1 << 20)}},
      {"handshake-timeout-ms",
       {"HTTP/WebSocket/TLS handshake timeout (default 10000)",
        duration_flag(&ServerConfig::handshake_timeout, 3'600'000L)}},
      {"dead-after-ms",
       {"close a silent connection after (default 25000; pinged at half)",
        duration_flag(&ServerConfig::dead_after, 3'600'000L)}},
      {"drain-ms",
       {"on SIGTERM, serve this long with /readyz 503 before closing connections with 1012 "
        "(default 2000 in cluster mode, 0 otherwise)",
        [](const std::string& v, ServerConfig& c) {
          long ms = 0;
          if (!parse_number<long>(v, ms, 0, 600'000)) return false;
          c.drain = std::chrono::milliseconds(ms);
          return true;
        }}},
      {"max-queue-messages",
       {"outbound queue bound in messages (default 64)",
        number_flag<std::size_t>(&ServerConfig::max_queue_messages, 1, 1 << 20)}},
      {"max-queue-bytes",
       {"outbound queue bound in bytes, also each WebSocket's kernel send "
        "buffer (default 262144)",
        number_flag<std::size_t>(&ServerConfig::max_queue_bytes, 1024, std::size_t{1} << 32)}},
      {"rate-per-second",
       {"inbound messages per second per connection (default 20)",
        [](const std::string& v, ServerConfig& c) {
          return parse_double(v, c.rate_per_second, 0.1, 1e7);
        }}},
      {"rate-burst",
       {"inbound burst per connection (default 40)",
        [](const std::string& v, ServerConfig& c) {
          return parse_double(v, c.rate_burst, 1, 1e7);
        }}},
      {"rate-strikes",
       {"rate_limited replies before closing with 1008 (default 20)",
        number_flag<int>(&ServerConfig::rate_strikes_before_close, 1, 1 << 20)}},
      {"max-connections-per-ip",
       {"concurrent connections per IP (default 64)",
        number_flag<int>(&ServerConfig::max_connections_per_ip, 1, 1 << 24)}},
      {"max-handshakes-per-ip",
       {"new connections per IP per second (default 20)",
        number_flag<int>(&ServerConfig::max_handshakes_per_ip_per_second, 1, 1 << 24)}},
      {"allowed-origins",
       {"comma-separated Origin allowlist for WebSocket upgrades",
        [](const std::string& v, ServerConfig& c) {
          std::stringstream in(v);
          std::string item;
          c.allowed_origins.clear();
          while (std::getline(in, item, ',')) {
            if (!item.empty()) c.allowed_origins.push_back(item);
          }
          return true;
        }}},
      {"trusted-proxy",
       {"ADDR or NETWORK/BITS of a reverse proxy in front of the server (nginx, HAProxy): "
        "from it the client's address is the last hop of X-Forwarded-For, for the per-IP "
        "limits and the logs; from any other peer that header is ignored; repeatable; the "
        "variable takes a comma-separated list (default: none)",
        add_trusted_proxies}},
      {"admin-token-file",
       {"FILE holding the bearer token of the admin API (/api/admin/..., docs/OPERATIONS.md, "
        "\"Admin API\"); read at start (default: none, and no admin API)",
        [](const std::string& v, ServerConfig& c) {
          c.admin_token_file = v;
          return !v.empty();
        }}},
      {"max-rooms-per-player",
       {"unfinished rooms one player may create (default 8)",
        number_flag<int>(&ServerConfig::max_rooms_per_player, 1, 1 << 20)}},
      {"empty-room-timeout-s",
       {"remove a room nobody is connected to after (default 600)",
        duration_flag(&ServerConfig::empty_room_timeout, 86'400L * 365)}},
      {"finished-room-retention-s",
       {"keep finished rooms for (default 3600)",
        duration_flag(&ServerConfig::finished_room_retention, 86'400L * 365)}},
      {"quick-play-bots-after-s",
       {"quick play fills a table's empty seats with bots after (default 15; 0: never)",
        duration_flag(&ServerConfig::quick_play_bots_after, 3600L)}},
      {"quick-play-rating-band",
       {"rated quick play seats players together only within this many rating points either "
        "side of the one who has waited longest, at first (default 100)",
        [](const std::string& v, ServerConfig& c) {
          return parse_double(v, c.quick_play_rating_band, 0, 10'000);
        }}},
      {"quick-play-rating-band-growth",
       {"rating points the rated quick-play band widens by per second waited (default 10)",
        [](const std::string& v, ServerConfig& c) {
          return parse_double(v, c.quick_play_rating_band_growth, 0, 10'000);
        }}},
      {"quick-play-rating-band-max",
       {"the rated quick-play band never widens past this many rating points (default 400)",
        [](const std::string& v, ServerConfig& c) {
          return parse_double(v, c.quick_play_rating_band_max, 0, 10'000);
        }}},
      {"bot-delay-ms",
       {"pause before a server-side bot moves (default 400)",
        duration_flag(&ServerConfig::bot_delay, 60'000L)}},
      {"max-rooms",
       {"rooms on this server (default 10000)",
        number_flag<std::size_t>(&ServerConfig::max_rooms, 1, 1 << 24)}},
      {"cluster",
       {"cluster mode: redis://[:PASSWORD@]HOST:PORT[/DB] of the cluster's Redis (needs a "
        "postgres:// --store shared by every node)",
        [](const std::string& v, ServerConfig& c) {
          c.cluster = v;
          try {
            parse_redis_url(v);
            return true;
          } catch (const RedisError&) {
            return false;
          }
        }}},
      {"node-id",
       {"this node's name in the cluster, unique among live nodes (default: --advertise)",
        [](const std::string& v, ServerConfig& c) {
          c.node_id = v;
          return !v.empty() && v.size() <= 64 &&
                 v.find_first_of(" \t\n\"\\{},") == std::string::npos;
        }}},
      {"advertise",
       {"HOST:PORT where clients and other nodes reach this node (default: --bind and the "
        "listening port)",
        [](const std::string& v, ServerConfig& c) {
          c.advertise = v;
          const auto colon = v.rfind(':');
          std::uint16_t port = 0;
          return colon != std::string::npos && colon > 0 &&
                 parse_number<std::uint16_t>(v.substr(colon + 1), port, 1, 65535);
        }}},
      {"engine",
       {"NAME=URL: host the game whose rules engine answers at URL (http://HOST:PORT/PATH, "
        "docs/ENGINES.md) as kind NAME (lowercase letters, digits, - and _); repeatable; the "
        "variable takes a comma-separated list",
        add_engines}},
      {"engine-timeout-ms",
       {"longest wait for one answer of a rules engine (default 5000)",
        [](const std::string& v, ServerConfig& c) {
          long ms = 0;
          if (!parse_number<long>(v, ms, 10, 600'000)) return false;
          c.engine_timeout = std::chrono::milliseconds(ms);
          return true;
        }}},
      {"log-format",
       {"text (`time level message` lines, the default) or json (one object per line: time, "
        "level, message, and event, room and player where known)",
        [](const std::string& v, ServerConfig& c) {
          c.log_format = v == "json" ? LogFormat::kJson : LogFormat::kText;
          return v == "text" || v == "json";
        }}},
      {"log-level",
       {"least level logged: debug, info (the default), warn or error",
        [](const std::string& v, ServerConfig& c) {
          static const std::map<std::string, LogLevel> levels = {{"debug", LogLevel::kDebug},
                                                                 {"info", LogLevel::kInfo},
                                                                 {"warn", LogLevel::kWarn},
                                                                 {"error", LogLevel::kError}};
          const auto it = levels.find(v);
          if (it == levels.end()) return false;
          c.log_level = it->second;
          return true;
        }}},
      {"lease-ms",
       {"cluster mode: a node silent this long is dead and its rooms move (default 5000)",
        [](const std::string& v, ServerConfig& c) {
          long ms = 0;
          if (!parse_number<long>(v, ms, 300, 600'000)) return false;
          c.lease = std::chrono::milliseconds(ms);
          return true;
        }}},
  };
  return table;
}

std::string env_name(const std::string& flag) {
  std::string out = "PARLOR_";
  for (char c : flag) out += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return out;
}

// A switch (--dev) in the environment or a config file: "true" or "false" for its setter,
// nullopt for a value that is neither.
std::optional<std::string> switch_value(const std::string& text) {
  if (text == "1" || text == "true" || text == "yes" || text == "on") return "true";
  if (text.empty() || text == "0" || text == "false" || text == "no" || text == "off") {
    return "false";
  }
  return std::nullopt;
}

struct Arg {
  std::string name;  // without the dashes
  std::string value;
};

// The command line as flags and values, checked against the table but not yet applied (the
// config file it names goes in first). Stops at --help.
std::optional<std::vector<Arg>> split_args(int argc, const char* const* argv, std::string& error,
                                           bool& help) {
  std::vector<Arg> args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return args;
    }
    if (arg.rfind("--", 0) != 0) {
      error = "unexpected argument \"" + arg + "\" (see --help)";
      return std::nullopt;
    }
    arg = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    auto it = flags().find(arg);
    if (it == flags().end()) {
      error = "unknown flag --" + arg + " (see --help)";
      return std::nullopt;
    }
    if (!value && !it->second.is_switch) {
      if (i + 1 >= argc) {
        error = "--" + arg + " needs a value";
        return std::nullopt;
      }
      value = argv[++i];
    }
    args.push_back({arg, value.value_or("")});
  }
  return args;
}

// The lowest layer over the defaults: FILE's `key = value` lines (server/config_file.h).
// Keys are the flags' names; an unknown key, a key set twice (but the repeatable engine and
// trusted-proxy) or a bad value stops the start with the file, the line and the key.
bool apply_config_file(const std::string& path, ServerConfig& config, std::string& error) {
  auto lines = read_config_file(path, error);
  if (!lines) return false;
  std::set<std::string> seen;
  for (const ConfigFileLine& line : *lines) {
    const std::string where = path + ":" + std::to_string(line.line) + ": ";
    const auto it = flags().find(line.key);
    if (it == flags().end()) {
      error = where + "unknown key \"" + line.key +
              "\" (the keys are the flags of parlor-server --help, without the dashes)";
      return false;
    }
    if (line.key == "config") {
      error = where + "a config file cannot name another (config)";
      return false;
    }
    if (line.key != "engine" && line.key != "trusted-proxy" && !seen.insert(line.key).second) {
      error = where + line.key + " is set twice";
      return false;
    }
    std::optional<std::string> value = line.value;
    if (it->second.is_switch) value = switch_value(line.value);
    if (!value || !it->second.set(*value, config)) {
      error = where + "bad value for " + line.key + ": \"" + shown_value(line.key, line.value) +
              "\"" + (it->second.is_switch ? " (true or false)" : "");
      return false;
    }
  }
  return true;
}

// Over the config file: PARLOR_FLAG_NAME variables.
bool apply_environment(ServerConfig& config, std::string& error) {
  for (const auto& [name, flag] : flags()) {
    // Read once at start, before any other thread exists.
    if (const char* value = std::getenv(env_name(name).c_str())) {  // NOLINT(concurrency-mt-unsafe)
      const std::string text = value;
      const std::optional<std::string> set_to = flag.is_switch ? switch_value(text) : text;
      if (!set_to || !flag.set(*set_to, config)) {
        error = "bad value for " + env_name(name) + ": \"" + shown_value(name, text) + "\"";
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::chrono::milliseconds drain_period(const ServerConfig& config) {
  using std::chrono::milliseconds;
  return config.drain.value_or(config.cluster.empty() ? milliseconds(0) : milliseconds(2'000));
}

std::string usage() {
  std::ostringstream out;
  out << "usage: parlor-server [--config FILE] [--flag value]...\n"
         "Every flag can also be set with an environment variable PARLOR_FLAG_NAME, or as a\n"
         "`flag-name = value` line in the --config FILE. Flags override the environment,\n"
         "which overrides the file, which overrides the defaults.\n\n";
  for (const auto& [name, flag] : flags()) {
    out << "  --" << name << (flag.is_switch ? "" : " VALUE") << "\n      " << flag.help << "  ["
        << env_name(name) << "]\n";
  }
  return out.str();
}

std::optional<ServerConfig> parse_config(int argc, const char* const* argv, std::string& error,
                                         bool& help) {
  ServerConfig config;
  help = false;
  const auto args = split_args(argc, argv, error, help);
  if (!args) return std::nullopt;
  if (help) return config;
  // Lowest layer first: the config file (the last --config, else PARLOR_CONFIG), the
  // environment, the flags.
  std::string config_file;
  // Read once at start, before any other thread exists.
  if (const char* path = std::getenv("PARLOR_CONFIG")) {  // NOLINT(concurrency-mt-unsafe)
    config_file = path;
  }
  for (const Arg& arg : *args) {
    if (arg.name == "config") config_file = arg.value;
  }
  if (!config_file.empty() && !apply_config_file(config_file, config, error)) return std::nullopt;
  if (!apply_environment(config, error)) return std::nullopt;
  for (const Arg& arg : *args) {
    if (!flags().at(arg.name).set(arg.value, config)) {
      error = "bad value for --" + arg.name + ": \"" + shown_value(arg.name, arg.value) + "\"";
      return std::nullopt;
    }
  }
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    error = "--tls-cert and --tls-key go together";
    return std::nullopt;
  }
  if (config.dead_after < std::chrono::milliseconds(100)) {
    error = "--dead-after-ms must be at least 100";
    return std::nullopt;
  }
  if (!config.cluster.empty() && !is_postgres_url(config.store)) {
    error = "--cluster needs a PostgreSQL store shared by every node (--store postgres://...)";
    return std::nullopt;
  }
  if (!config.admin_token_file.empty()) {
    auto token = read_admin_token(config.admin_token_file, error);
    if (!token) return std::nullopt;
    config.admin_token = std::move(*token);
  }
  // A finished room still in memory may start a rematch; its record must still be there.
  if (config.replay_retention.count() > 0 &&
      config.replay_retention < config.finished_room_retention) {
    error =
        "--replay-retention-hours must be 0 (forever) or at least as long as "
        "--finished-room-retention-s";
    return std::nullopt;
  }
  return config;
}

}  // namespace parlor::server
