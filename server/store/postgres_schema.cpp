#include "server/store/postgres_schema.h"

#include <array>

#include "server/store/store.h"

namespace parlor::server::pg {
namespace {

// Migration N takes a database from parlor_schema.version N to N+1. Append; never edit a
// shipped one. JSON columns are `json`, not `jsonb`: the text comes back exactly as it was
// written (jsonb reorders keys and refuses \u0000).
constexpr std::array<std::string_view, kSchemaVersion> kMigrations = {
    // 0 -> 1: the schema of SQLite's version 3 without its move log (PostgreSQL appends rows
    // to the heap anyway); parlor_schema says whose database this is.
    R"sql(
CREATE TABLE parlor_schema (
  application_id bigint NOT NULL,
  version        integer NOT NULL,
  only_row       boolean PRIMARY KEY DEFAULT true CHECK (only_row)
);
CREATE TABLE players (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  token_hash bytea NOT NULL CHECK (octet_length(token_hash) = 32),  -- SHA-256; never the token
  created_ms bigint NOT NULL
);
CREATE TABLE rooms (
  id           text PRIMARY KEY,
  kind         text NOT NULL,
  seats        integer NOT NULL CHECK (seats > 0),
  game_options json NOT NULL,  -- normalized
  room_options json NOT NULL,
  creator_id   text REFERENCES players(id),
  status       text NOT NULL CHECK (status IN ('waiting', 'playing', 'finished', 'abandoned')),
  game_number  integer NOT NULL CHECK (game_number >= 0),  -- the current game; 0: none yet
  created_ms   bigint NOT NULL,
  finished_ms  bigint
);
CREATE INDEX rooms_by_status ON rooms (status);
CREATE TABLE room_seats (
  room_id   text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
  seat      integer NOT NULL CHECK (seat >= 0),
  player_id text REFERENCES players(id),  -- NULL: a bot added with add_bot
  name      text NOT NULL,
  bot       text,                         -- the strategy while a bot plays the seat
  PRIMARY KEY (room_id, seat)
);
CREATE TABLE games (
  room_id     text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
  game_number integer NOT NULL CHECK (game_number > 0),
  seed        bigint NOT NULL,  -- the uint64 seed's bits as int64
  start_seq   bigint NOT NULL,
  started_ms  bigint NOT NULL,
  finished_ms bigint,
  PRIMARY KEY (room_id, game_number)
);
CREATE TABLE moves (
  room_id     text NOT NULL,
  game_number integer NOT NULL,
  seq         bigint NOT NULL,
  seat        integer NOT NULL,
  move        json NOT NULL,
  at_ms       bigint NOT NULL,
  state_hash  bigint,  -- the uint64 hash's bits as int64, or NULL
  PRIMARY KEY (room_id, game_number, seq),
  FOREIGN KEY (room_id, game_number) REFERENCES games(room_id, game_number) ON DELETE CASCADE
);
)sql",
    // 1 -> 2: cluster mode. Each room has an owner node and a fencing epoch; the triggers
    // refuse, inside the writing transaction, any write carrying an older epoch than the
    // room's (SQLSTATE PF409), so an owner that lost its room cannot append to it. Moves keep
    // the epoch of the owner that accepted them. Players are found by token when they resume
    // on another node.
    R"sql(
ALTER TABLE rooms ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE rooms ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE moves ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
CREATE INDEX players_by_token ON players (token_hash);
CREATE INDEX unfinished_rooms_by_owner ON rooms (owner) WHERE status IN ('waiting', 'playing');
CREATE FUNCTION parlor_fence_room() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.epoch < OLD.epoch OR (NEW.epoch = OLD.epoch AND NEW.owner <> OLD.owner) THEN
    RAISE EXCEPTION 'room % belongs to node "%" at epoch %; this write is from node "%" at epoch %',
      OLD.id, OLD.owner, OLD.epoch, NEW.owner, NEW.epoch USING ERRCODE = 'PF409';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER rooms_fence BEFORE UPDATE ON rooms
  FOR EACH ROW EXECUTE FUNCTION parlor_fence_room();
CREATE FUNCTION parlor_fence_move() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  current bigint;
BEGIN
  -- FOR SHARE waits for a takeover's fencing UPDATE of the room and then sees its epoch.
  SELECT epoch INTO current FROM rooms WHERE id = NEW.room_id FOR SHARE;
  IF current > NEW.epoch THEN
    RAISE EXCEPTION 'room % is at epoch %; this move is from epoch %',
      NEW.room_id, current, NEW.epoch USING ERRCODE = 'PF409';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER moves_fence BEFORE INSERT ON moves
  FOR EACH ROW EXECUTE FUNCTION parlor_fence_move();
)sql",
    // 2 -> 3: rated games and ratings, as SQLite's version 4 (docs/ARCHITECTURE.md,
    // "Ratings"). Not tied to rooms: pruning a room's replays keeps its rated results.
    R"sql(
CREATE TABLE rated_games (
  room_id     text NOT NULL,
  game_number integer NOT NULL CHECK (game_number > 0),
  kind        text NOT NULL,
  finished_ms bigint NOT NULL,
  system      text NOT NULL CHECK (system IN ('glicko2', 'weng-lin')),
  sides       integer NOT NULL CHECK (sides >= 2),
  result      json NOT NULL,  -- the game's result as game_over carried it
  PRIMARY KEY (room_id, game_number)  -- a game is rated once
);
CREATE TABLE rated_seats (
  room_id           text NOT NULL,
  game_number       integer NOT NULL,
  seat              integer NOT NULL CHECK (seat >= 0),
  player_id         text NOT NULL,  -- a player's id, or bot:<strategy>
  name              text NOT NULL,
  kind              text NOT NULL,
  finished_ms       bigint NOT NULL,
  side              integer NOT NULL,
  rank              integer NOT NULL,  -- the side's place, 0 best
  abandoned         boolean NOT NULL,
  rating_before     double precision NOT NULL,
  deviation_before  double precision NOT NULL,
  volatility_before double precision NOT NULL,
  rating_after      double precision NOT NULL,
  deviation_after   double precision NOT NULL,
  volatility_after  double precision NOT NULL,
  PRIMARY KEY (room_id, game_number, seat),
  FOREIGN KEY (room_id, game_number) REFERENCES rated_games(room_id, game_number)
    ON DELETE CASCADE
);
CREATE INDEX rated_seats_by_player ON rated_seats (player_id, finished_ms);
CREATE TABLE ratings (
  player_id  text NOT NULL,
  kind       text NOT NULL,
  name       text NOT NULL,  -- as the player was last seated
  rating     double precision NOT NULL,
  deviation  double precision NOT NULL,
  volatility double precision NOT NULL,
  games      integer NOT NULL CHECK (games >= 0),
  updated_ms bigint NOT NULL,
  PRIMARY KEY (player_id, kind)
);
CREATE INDEX ratings_by_kind ON ratings (kind, (rating - 2 * deviation) DESC, player_id);
)sql",
    // 3 -> 4: when each player was last connected, for player retention, as SQLite's
    // version 5 (docs/OPERATIONS.md, "Player retention"). The default is the time of the
    // insert: a node still on the previous build (a rolling upgrade) inserts players without
    // the column, and they must not look idle since 1970.
    R"sql(
ALTER TABLE players ADD COLUMN last_seen_ms bigint NOT NULL
  DEFAULT (floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint;
UPDATE players SET last_seen_ms = created_ms;
CREATE INDEX players_by_last_seen ON players (last_seen_ms);
CREATE INDEX room_seats_by_player ON room_seats (player_id);
CREATE INDEX rooms_by_creator ON rooms (creator_id);
)sql",
};

// Taken (per transaction) while checking and migrating, so servers starting together on
// one database migrate it once.
constexpr std::string_view kMigrationLock = "SELECT pg_advisory_xact_lock(1347572818, 1)";

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

struct Target {
  std::string database;
  std::string server;  // host:port
  std::string user;
  std::string host;
  std::string port;
};

// What libpq makes of the URL, without connecting (its defaults filled in: PGHOST, the
// socket directory, port 5432, the OS user).
Target parse_target(const std::string& url) {
  Target target{"?", "?", "?", "", ""};
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (error) PQfreemem(error);
  if (!options) return target;
  std::string host, hostaddr, port;
  for (auto* option = options; option->keyword; ++option) {
    const std::string keyword = option->keyword;
    const char* value = option->val;
    if (!value || !*value) continue;
    if (keyword == "dbname") target.database = value;
    if (keyword == "host") host = value;
    if (keyword == "hostaddr") hostaddr = value;
    if (keyword == "port") port = value;
    if (keyword == "user") target.user = value;
  }
  PQconninfoFree(options);
  // Unset parts come from the environment or libpq's defaults, as connecting does.
  PQconninfoOption* defaults = PQconndefaults();
  for (auto* option = defaults; option && option->keyword; ++option) {
    const std::string keyword = option->keyword;
    const char* value = option->val;
    if (!value || !*value) continue;
    if (keyword == "host" && host.empty() && hostaddr.empty()) host = value;
    if (keyword == "port" && port.empty()) port = value;
    if (keyword == "user" && target.user == "?") target.user = value;
  }
  if (defaults) PQconninfoFree(defaults);
  if (host.empty()) host = hostaddr.empty() ? "localhost" : hostaddr;
  if (port.empty()) port = "5432";
  if (target.database == "?") target.database = target.user;
  target.host = host;
  target.port = port;
  target.server = host + ":" + port;
  return target;
}

}  // namespace

std::string_view migration(std::int64_t from_version) {
  return kMigrations.at(static_cast<std::size_t>(from_version));
}

std::string describe_target(const std::string& url) {
  const Target target = parse_target(url);
  return "database \"" + target.database + "\" on PostgreSQL server " + target.server;
}

std::unique_ptr<Conn> connect(const std::string& url, std::chrono::milliseconds io_timeout) {
  try {
    return std::make_unique<Conn>(url, io_timeout);
  } catch (const Error& error) {
    const Target target = parse_target(url);
    const std::string why = error.what();
    const std::string server = "PostgreSQL server " + target.server;
    // libpq's own text never holds the password; the URL is redacted.
    const std::string detail = " [" + why + "; --store " + redact_url(url) + "]";
    if (contains(why, "Connection refused")) {
      throw StoreError("cannot reach " + server + " (connection refused): is it running, and are " +
                       "the host and port right?" + detail);
    }
    if (contains(why, "password authentication failed") || contains(why, "no password supplied") ||
        contains(why, "authentication failed")) {
      throw StoreError(server + " refused user \"" + target.user + "\" for database \"" +
                       target.database +
                       "\": password authentication failed (check the user and password)" + detail);
    }
    if (contains(why, "does not exist") && contains(why, "database")) {
      throw StoreError("database \"" + target.database + "\" does not exist on " + server +
                       " (create it: createdb -h " + target.host + " -p " + target.port + " -U " +
                       target.user + " " + target.database + ")" + detail);
    }
    if (contains(why, "timeout expired")) {
      throw StoreError("cannot reach " + server + " (no answer before the connect timeout)" +
                       detail);
    }
    throw StoreError("cannot connect to " + describe_target(url) + detail);
  }
}

void open_schema(Conn& conn, const std::string& url) {
  const std::string where = describe_target(url);
  try {
    conn.exec("BEGIN");
    try {
      conn.exec(std::string(kMigrationLock));
      // Parlor's tables live in the first schema of the search path (usually public).
      const Result found = conn.exec(
          "SELECT current_schema(), to_regclass('parlor_schema') IS NOT NULL,"
          " (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
          "  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f'))");
      if (found.is_null(0, 0)) {
        throw StoreError(where + " has no schema to create tables in (check search_path)");
      }
      const std::string schema = found.text(0, 0);
      const bool ours = found.text(0, 1) == "t";
      const std::int64_t tables = found.integer(0, 2);
      std::int64_t version = 0;
      if (ours) {
        const Result row = conn.exec("SELECT application_id, version FROM parlor_schema");
        if (row.rows() != 1 || row.integer(0, 0) != kApplicationId) {
          throw StoreError(where + " has a parlor_schema table that is not Parlor's (schema " +
                           schema + "); use an empty database for Parlor");
        }
        version = row.integer(0, 1);
      } else if (tables > 0) {
        throw StoreError(where + " holds " + std::to_string(tables) + " other tables in schema " +
                         schema +
                         " but no Parlor schema (no parlor_schema table); use an empty database "
                         "for Parlor");
      }
      if (version > kSchemaVersion) {
        throw StoreError(where + " has Parlor schema version " + std::to_string(version) +
                         ", newer than this build's " + std::to_string(kSchemaVersion) +
                         "; run a newer parlor-server");
      }
      conn.exec("COMMIT");
      // One transaction per step: a failure mid-migration leaves the previous version intact.
      for (std::int64_t step = version; step < kSchemaVersion; ++step) {
        conn.exec("BEGIN");
        conn.exec(std::string(kMigrationLock));
        // Another server may have migrated while this one waited for the lock.
        const std::int64_t now =
            conn.exec("SELECT to_regclass('parlor_schema') IS NOT NULL").text(0, 0) == "t"
                ? conn.exec("SELECT version FROM parlor_schema").integer(0, 0)
                : 0;
        if (now > step) {
          conn.exec("COMMIT");
          step = now - 1;
          continue;
        }
        conn.exec(std::string(kMigrations[static_cast<std::size_t>(step)]));
        if (step == 0) {
          conn.exec("INSERT INTO parlor_schema (application_id, version) VALUES (" +
                    std::to_string(kApplicationId) + ", 1)");
        } else {
          conn.exec("UPDATE parlor_schema SET version = " + std::to_string(step + 1));
        }
        conn.exec("COMMIT");
      }
    } catch (...) {
      if (!conn.broken() && conn.in_transaction()) conn.exec("ROLLBACK");
      throw;
    }
  } catch (const Error& error) {
    throw StoreError("cannot prepare " + where + ": " + error.what());
  }
}

}  // namespace parlor::server::pg
