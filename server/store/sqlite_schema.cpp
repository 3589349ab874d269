#include "server/store/sqlite_schema.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "server/store/store.h"

namespace parlor::server::sqlite {
namespace {

// Migration N takes a file from user_version N to N+1. Append; never edit a shipped one.
constexpr std::array<std::string_view, kSchemaVersion> kMigrations = {
    // 0 -> 1: players, rooms with their seats, games (one per start, with its seed) and moves.
    R"sql(
CREATE TABLE players (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  token_hash BLOB NOT NULL CHECK (length(token_hash) = 32),  -- SHA-256; never the token
  created_ms INTEGER NOT NULL
);
CREATE TABLE rooms (
  id              TEXT PRIMARY KEY,
  kind            TEXT NOT NULL,
  seats           INTEGER NOT NULL CHECK (seats > 0),
  game_options    TEXT NOT NULL,  -- JSON, normalized
  room_options    TEXT NOT NULL,  -- JSON
  creator_id      TEXT REFERENCES players(id),
  status          TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished', 'abandoned')),
  game_number     INTEGER NOT NULL CHECK (game_number >= 0),  -- the current game; 0: none yet
  created_ms      INTEGER NOT NULL,
  finished_ms     INTEGER
);
CREATE INDEX rooms_by_status ON rooms (status);
CREATE TABLE room_seats (
  room_id   TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
  seat      INTEGER NOT NULL CHECK (seat >= 0),
  player_id TEXT REFERENCES players(id),  -- NULL: a bot added with add_bot
  name      TEXT NOT NULL,
  bot       TEXT,                         -- the strategy while a bot plays the seat
  PRIMARY KEY (room_id, seat)
) WITHOUT ROWID;
CREATE TABLE games (
  room_id     TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
  game_number INTEGER NOT NULL CHECK (game_number > 0),
  seed        INTEGER NOT NULL,  -- the uint64 seed's bits as int64
  start_seq   INTEGER NOT NULL,
  started_ms  INTEGER NOT NULL,
  finished_ms INTEGER,
  PRIMARY KEY (room_id, game_number)
) WITHOUT ROWID;
CREATE TABLE moves (
  room_id     TEXT NOT NULL,
  game_number INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  seat        INTEGER NOT NULL,
  move        TEXT NOT NULL,  -- JSON
  at_ms       INTEGER NOT NULL,
  PRIMARY KEY (room_id, game_number, seq),
  FOREIGN KEY (room_id, game_number) REFERENCES games(room_id, game_number) ON DELETE CASCADE
) WITHOUT ROWID;
)sql",
    // 1 -> 2: a checkpoint hash of the game state after some moves, checked on recovery.
    R"sql(
ALTER TABLE moves ADD COLUMN state_hash INTEGER;  -- the uint64 hash's bits as int64, or NULL
)sql",
    // 2 -> 3: moves of live games are appended to move_log, a rowid table in append order
    // with no other index, so a commit dirties its last page or two instead of one `moves`
    // page per room. A game's moves are copied into `moves` once its room record says it is
    // over. The moves of games that are live now move to the log.
    R"sql(
CREATE TABLE move_log (
  id          INTEGER PRIMARY KEY,  -- append order
  room_id     TEXT NOT NULL,
  game_number INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  seat        INTEGER NOT NULL,
  move        TEXT NOT NULL,  -- JSON
  at_ms       INTEGER NOT NULL,
  state_hash  INTEGER
);
INSERT INTO move_log (room_id, game_number, seq, seat, move, at_ms, state_hash)
  SELECT m.room_id, m.game_number, m.seq, m.seat, m.move, m.at_ms, m.state_hash
  FROM moves m JOIN rooms r ON r.id = m.room_id AND r.game_number = m.game_number
  WHERE r.status IN ('waiting', 'playing') AND r.finished_ms IS NULL
  ORDER BY m.room_id, m.game_number, m.seq;
DELETE FROM moves WHERE (room_id, game_number) IN (
  SELECT id, game_number FROM rooms WHERE status IN ('waiting', 'playing') AND finished_ms IS NULL);
)sql",
    // 3 -> 4: rated games and ratings (docs/ARCHITECTURE.md, "Ratings"). Not tied to rooms:
    // pruning a room's replays keeps its rated results and everyone's ratings.
    R"sql(
CREATE TABLE rated_games (
  room_id     TEXT NOT NULL,
  game_number INTEGER NOT NULL CHECK (game_number > 0),
  kind        TEXT NOT NULL,
  finished_ms INTEGER NOT NULL,
  system      TEXT NOT NULL CHECK (system IN ('glicko2', 'weng-lin')),
  sides       INTEGER NOT NULL CHECK (sides >= 2),
  result      TEXT NOT NULL,  -- JSON: the game's result as game_over carried it
  PRIMARY KEY (room_id, game_number)  -- a game is rated once
) WITHOUT ROWID;
CREATE TABLE rated_seats (
  room_id           TEXT NOT NULL,
  game_number       INTEGER NOT NULL,
  seat              INTEGER NOT NULL CHECK (seat >= 0),
  player_id         TEXT NOT NULL,  -- a player's id, or bot:<strategy>
  name              TEXT NOT NULL,
  kind              TEXT NOT NULL,
  finished_ms       INTEGER NOT NULL,
  side              INTEGER NOT NULL,
  rank              INTEGER NOT NULL,  -- the side's place, 0 best
  abandoned         INTEGER NOT NULL CHECK (abandoned IN (0, 1)),
  rating_before     REAL NOT NULL,
  deviation_before  REAL NOT NULL,
  volatility_before REAL NOT NULL,
  rating_after      REAL NOT NULL,
  deviation_after   REAL NOT NULL,
  volatility_after  REAL NOT NULL,
  PRIMARY KEY (room_id, game_number, seat),
  FOREIGN KEY (room_id, game_number) REFERENCES rated_games(room_id, game_number)
    ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX rated_seats_by_player ON rated_seats (player_id, finished_ms);
CREATE TABLE ratings (
  player_id  TEXT NOT NULL,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,  -- as the player was last seated
  rating     REAL NOT NULL,
  deviation  REAL NOT NULL,
  volatility REAL NOT NULL,
  games      INTEGER NOT NULL CHECK (games >= 0),
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (player_id, kind)
) WITHOUT ROWID;
CREATE INDEX ratings_by_kind ON ratings (kind, (rating - 2 * deviation) DESC, player_id);
)sql",
    // 4 -> 5: when each player was last connected, for player retention (docs/OPERATIONS.md,
    // "Player retention"); a stored player counts as last seen when it was created.
    R"sql(
ALTER TABLE players ADD COLUMN last_seen_ms INTEGER NOT NULL DEFAULT 0;
UPDATE players SET last_seen_ms = created_ms;
CREATE INDEX players_by_last_seen ON players (last_seen_ms);
CREATE INDEX room_seats_by_player ON room_seats (player_id);
CREATE INDEX rooms_by_creator ON rooms (creator_id);
)sql",
    // 5 -> 6: a game archived from now on is one row of packed_moves, appended, rather than a
    // row of `moves` per move: `moves` is keyed by room, so archiving a game dirtied its
    // room's pages there; packed, the durable store spends about 5% less CPU per move
    // (docs/BENCHMARKS.md, "Durable store: where a move's CPU goes"). Games archived before
    // stay in `moves`.
    R"sql(
CREATE TABLE packed_moves (
  id          INTEGER PRIMARY KEY,  -- append order
  room_id     TEXT NOT NULL,
  game_number INTEGER NOT NULL,
  moves       TEXT NOT NULL,  -- JSON: [[seq, seat, move, at_ms, state_hash or null], ...]
  FOREIGN KEY (room_id, game_number) REFERENCES games(room_id, game_number) ON DELETE CASCADE
);
CREATE INDEX packed_moves_by_game ON packed_moves (room_id, game_number);
)sql",
    // 6 -> 7: the redo log (README.md, "Durability: the redo log"). A live game's moves are
    // kept in the log and reach the file packed when the game ends; the rest is committed
    // without an fsync. redo_state names the log's generation this file goes with and the last
    // of its batches the file has, written in each batch's transaction: recovery replays the
    // later ones. move_log is emptied into the log when the store first opens the file.
    R"sql(
CREATE TABLE redo_state (
  id         INTEGER PRIMARY KEY CHECK (id = 0),
  generation INTEGER NOT NULL,
  applied    INTEGER NOT NULL
);
INSERT INTO redo_state (id, generation, applied) VALUES (0, 0, 0);
)sql",
};

std::string data_file(const std::filesystem::path& file) { return "data file " + file.string(); }

// Turns an SQLite error while opening into a message that says what is wrong with the file.
[[noreturn]] void fail(const std::filesystem::path& file, const Error& error) {
  const int primary = error.code() & 0xff;
  if (primary == SQLITE_NOTADB) {
    throw StoreError(data_file(file) + " is not a SQLite database (or is encrypted or corrupt): " +
                     error.what() + "; move it away to start with an empty store");
  }
  if (primary == SQLITE_CORRUPT) {
    throw StoreError(data_file(file) + " is corrupt: " + error.what() +
                     "; restore it from a backup or move it away");
  }
  if (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_PERM ||
      primary == SQLITE_IOERR) {
    throw StoreError("cannot open " + data_file(file) + " for writing: " + error.what() +
                     " (check that the data directory is writable)");
  }
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    throw StoreError(data_file(file) + " is locked by another process: " + error.what());
  }
  throw StoreError("cannot open " + data_file(file) + ": " + error.what());
}

// Refuses a valid SQLite file that is not ours, rather than adding tables to it.
void check_identity(Db& db, const std::filesystem::path& file) {
  const std::int64_t application_id = db.query_int("PRAGMA application_id");
  if (application_id == kApplicationId) return;
  const std::int64_t objects = db.query_int("SELECT count(*) FROM sqlite_master");
  if (application_id == 0 && objects == 0) return;  // a new, empty file
  std::ostringstream message;
  message << data_file(file) << " is a SQLite database but not a Parlor data file (application_id "
          << application_id << ", " << objects << " schema objects)";
  throw StoreError(message.str());
}

void check_integrity(Db& db, const std::filesystem::path& file) {
  Statement check(db, "PRAGMA quick_check(5)");
  std::string problems;
  while (check.step()) {
    std::string line = check.column_text(0);
    if (line == "ok") return;
    std::replace(line.begin(), line.end(), '\n', ' ');
    problems += (problems.empty() ? "" : "; ") + line;
  }
  throw StoreError(data_file(file) + " is corrupt (PRAGMA quick_check: " + problems +
                   "); restore it from a backup or move it away");
}

void migrate(Db& db, const std::filesystem::path& file) {
  const std::int64_t version = db.query_int("PRAGMA user_version");
  if (version > kSchemaVersion) {
    throw StoreError(data_file(file) + " has schema version " + std::to_string(version) +
                     ", newer than this build's " + std::to_string(kSchemaVersion) +
                     "; run a newer parlor-server");
  }
  for (std::int64_t step = version; step < kSchemaVersion; ++step) {
    // One transaction per step: a crash mid-migration leaves the previous version intact.
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(std::string(kMigrations[static_cast<std::size_t>(step)]));
      db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
      db.exec("PRAGMA user_version = " + std::to_string(step + 1));
      db.exec("COMMIT");
    } catch (const Error&) {
      db.exec("ROLLBACK");
      throw;
    }
  }
}

}  // namespace

std::string_view migration(std::int64_t from_version) {
  return kMigrations.at(static_cast<std::size_t>(from_version));
}

std::unique_ptr<Db> open_writer(const std::filesystem::path& file, const OpenOptions& options) {
  // SQLite's memory statistics take a global mutex on every allocation; nothing reads them.
  // The setting is process-wide and only takes before SQLite initializes (otherwise SQLite
  // refuses it, harmlessly).
  static const bool memory_statistics_off = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  static_cast<void>(memory_statistics_off);
  try {
    auto db = std::make_unique<Db>(file);
    sqlite3_busy_timeout(db->get(), 5000);
    if (sqlite3_db_readonly(db->get(), "main") == 1) {
      throw StoreError(data_file(file) + " is read-only; the server must be able to write it");
    }
    check_identity(*db, file);
    if (options.quick_check) check_integrity(*db, file);
    std::string mode;
    {
      Statement journal(*db, "PRAGMA journal_mode = WAL");
      if (journal.step()) mode = journal.column_text(0);
    }
    if (mode != "wal") {
      throw StoreError("cannot use write-ahead logging for " + data_file(file) +
                       " (journal_mode is \"" + mode +
                       "\"); put the data directory on a local "
                       "file system");
    }
    db->exec("PRAGMA synchronous = " + std::string(options.synchronous));
    db->exec("PRAGMA foreign_keys = ON");
    // Savepoints and multi-row statements journal the pages they change so they can be
    // undone; kept in memory, that is not a temporary file written on every room write.
    db->exec("PRAGMA temp_store = MEMORY");
    // The writer's page cache: 512 KiB, not SQLite's 2 MB. It holds the pages the writes of a
    // second touch (the rooms' and games' rows being played, the B-trees' inner pages); a page
    // it has let go is read again from the kernel's page cache, not the disk. 2 MB filled
    // while 10,000 players connected and stayed, 150 bytes of each one's share of the RSS,
    // and 512 KiB costs a durable move nothing (docs/BENCHMARKS.md).
    db->exec("PRAGMA cache_size = -512");
    migrate(*db, file);
    return db;
  } catch (const Error& error) {
    fail(file, error);
  }
}

std::unique_ptr<Db> open_reader(const std::filesystem::path& file) {
  try {
    auto db = std::make_unique<Db>(file);
    sqlite3_busy_timeout(db->get(), 5000);
    db->exec("PRAGMA query_only = ON");
    return db;
  } catch (const Error& error) {
    fail(file, error);
  }
}

}  // namespace parlor::server::sqlite
