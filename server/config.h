// Every setting of parlor-server in one struct: limits are visible settings with the
// defaults of docs/SECURITY.md, each settable by a flag and by an environment variable.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/log.h"

namespace parlor::server {

// --engine NAME=URL: a game whose rules engine answers over HTTP (docs/ENGINES.md).
struct EngineFlag {
  std::string name;  // the game's kind
  std::string url;   // the engine's base URL
};

struct ServerConfig {
  std::string bind = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: any free port
  int threads = 0;            // 0: hardware threads
  std::string static_dir = "client-web/dist";
  bool dev = false;  // allows the `seed` room option

  // Where rooms, moves and players are kept: "sqlite" (a file in data_dir), a PostgreSQL URL
  // (postgres:// or postgresql://; it may hold a password: show it only through
  // redact_store_url) or "none" (in memory only).
  std::string store = "sqlite";
  std::string data_dir = "./data";
  // kFull: an acknowledged move survives a power loss; kNormal: a process crash only
  // (server/store/README.md).
  enum class StoreSync { kFull, kNormal };
  StoreSync store_sync = StoreSync::kFull;
  // Group commit: how long the store's writer waits after the oldest queued write for more.
  std::chrono::microseconds store_batch_window{500};
  // Finished and abandoned rooms stay in the store this long (their replays); 0: forever.
  std::chrono::hours replay_retention{24 * 30};
  // A player away this long, in no room, loses its token (invalid_token) and is forgotten:
  // from memory, and from the store unless it left a rating, a seat or a room there
  // (docs/OPERATIONS.md, "Player retention"). 0: never.
  std::chrono::seconds token_idle{86'400L * 30};

  std::string tls_cert;  // PEM files; both set turns on https/wss on the same port
  std::string tls_key;

  // WebSocket and JSON limits.
  std::size_t max_message_bytes = std::size_t{16} * 1024;
  std::size_t max_http_header_bytes = std::size_t{8} * 1024;
  std::chrono::milliseconds handshake_timeout{10'000};
  // A connection silent this long is closed; it is pinged after half of it.
  std::chrono::milliseconds dead_after{25'000};
  std::size_t max_queue_messages = 64;
  std::size_t max_queue_bytes = std::size_t{256} * 1024;
  double rate_per_second = 20;
  double rate_burst = 40;
  int rate_strikes_before_close = 20;  // rate_limited replies before closing with 1008
  int max_connections_per_ip = 64;
  int max_handshakes_per_ip_per_second = 20;
  std::vector<std::string> allowed_origins;  // empty: any Origin
  // Reverse proxies (addresses or CIDR networks, server/trusted_proxy.h) whose connections
  // carry the client's address in X-Forwarded-For: per-IP limits and log lines use that
  // address for them. Empty: the header is never believed.
  std::vector<std::string> trusted_proxies;

  // Rooms.
  int max_rooms_per_player = 8;
  std::chrono::seconds empty_room_timeout{600};  // nobody connected
  std::chrono::seconds finished_room_retention{3600};
  std::chrono::milliseconds bot_delay{400};
  // Quick play: a table still short of players after this long is filled with bots (0: never).
  std::chrono::seconds quick_play_bots_after{15};
  // Rated quick play: players share a table only within a rating band around the player it
  // forms for: this many points either side at first, widening by the growth every second
  // that player waits, up to the maximum (server/matchmaker.h).
  double quick_play_rating_band = 100;
  double quick_play_rating_band_growth = 10;
  double quick_play_rating_band_max = 400;
  std::size_t max_rooms = 10'000;

  // Cluster mode (docs/ARCHITECTURE.md, "Cluster mode"): the Redis (redis://host:port) that
  // holds the node registry and the room directory; empty: a single server. Needs a
  // PostgreSQL --store shared by every node.
  std::string cluster;
  std::string node_id;    // unique in the cluster (default: the advertised host:port)
  std::string advertise;  // host:port where clients and other nodes reach this node
                          // (default: --bind and the port listened on)
  // A node not heard from for this long is dead, and live nodes take its rooms over.
  std::chrono::milliseconds lease{5'000};
  // On SIGTERM, how long /readyz answers 503 while the node still serves, so that a proxy's
  // health checks take it out of rotation before its connections are closed (with 1012,
  // "service restart", rather than 1001). Unset: 2 s in cluster mode (deploy/haproxy checks
  // every 500 ms, each allowed 1 s, and takes a node out after two failures: within about
  // two check intervals and a timeout), none for a single server. See drain_period().
  std::optional<std::chrono::milliseconds> drain;

  // The operator's log on stderr: text or one JSON object per line, and the least level
  // written.
  LogFormat log_format = LogFormat::kText;
  LogLevel log_level = LogLevel::kInfo;

  // External games: their engines, read at start; and how long one engine call may take.
  std::vector<EngineFlag> engines;
  std::chrono::milliseconds engine_timeout{5'000};

  // The admin API (server/admin_api.h): the file that holds its bearer token, and the token
  // read from it at start (blanks around it removed). Empty: there is no admin API.
  std::string admin_token_file;
  std::string admin_token;
};

// Parses flags (--name value or --name=value) over environment variables
// (PARLOR_NAME) over defaults. Returns nullopt and a message on a bad value;
// `help` receives the usage text when --help is given.
std::optional<ServerConfig> parse_config(int argc, const char* const* argv, std::string& error,
                                         bool& help);
std::string usage();

// The drain of `config`: --drain-ms, or its default for the mode.
std::chrono::milliseconds drain_period(const ServerConfig& config);

}  // namespace parlor::server
