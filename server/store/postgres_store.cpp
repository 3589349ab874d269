#include "server/store/postgres_store.h"

#include <algorithm>
#include <future>
#include <iostream>
#include <map>
#include <stdexcept>

#include "server/store/pg_conn.h"
#include "server/store/postgres_schema.h"

namespace parlor::server {

namespace {

std::string_view status_name(StoredRoomStatus status) {
  switch (status) {
    case StoredRoomStatus::kWaiting:
      return "waiting";
    case StoredRoomStatus::kPlaying:
      return "playing";
    case StoredRoomStatus::kFinished:
      return "finished";
    case StoredRoomStatus::kAbandoned:
      return "abandoned";
  }
  return "waiting";
}

std::optional<StoredRoomStatus> parse_status(std::string_view name) {
  for (auto status : {StoredRoomStatus::kWaiting, StoredRoomStatus::kPlaying,
                      StoredRoomStatus::kFinished, StoredRoomStatus::kAbandoned}) {
    if (status_name(status) == name) return status;
  }
  return std::nullopt;
}

// Seeds and state hashes are uint64; PostgreSQL's bigint is int64. The bits are stored
// unchanged.
std::int64_t bits(std::uint64_t value) { return static_cast<std::int64_t>(value); }

// Parameters go as C strings: a NUL byte would silently cut the text short, and PostgreSQL
// text cannot hold one anyway. Refused, so the write fails rather than storing less.
std::string text(std::string value, std::string_view what) {
  if (value.find('\0') != std::string::npos) {
    throw std::invalid_argument(std::string(what) + " contains a NUL byte");
  }
  return value;
}
std::optional<std::string> text(const std::optional<std::string>& value, std::string_view what) {
  if (!value) return std::nullopt;
  return text(*value, what);
}
std::string number(std::int64_t value) { return std::to_string(value); }
std::optional<std::string> number(const std::optional<std::int64_t>& value) {
  if (!value) return std::nullopt;
  return std::to_string(*value);
}

std::string hex(const TokenHash& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : hash) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0xf];
  }
  return out;
}

nlohmann::json parse_json(const std::string& value, const std::string& what) {
  auto parsed = nlohmann::json::parse(value, nullptr, false);
  if (parsed.is_discarded()) throw StoreError(what + " is not valid JSON");
  return parsed;
}

// A refusal of one statement — a constraint or bad data (SQLSTATE classes 23 and 22) — is
// that write's failure alone; anything else (the connection, the server, the schema) fails
// the whole batch.
bool refuses_one_write(const std::string& sqlstate) {
  return sqlstate.rfind("23", 0) == 0 || sqlstate.rfind("22", 0) == 0;
}

// Held by the writer's connection while the store is open: one server per database, as
// with SQLite's lock file, until rooms are assigned to servers. It dies with the connection.
constexpr std::string_view kServerLock = "SELECT pg_try_advisory_lock(1347572818, 2)";

// The writer's prepared statements.
constexpr std::pair<const char*, std::string_view> kStatements[] = {
    {"begin", "BEGIN"},
    {"commit", "COMMIT"},
    {"upsert_player",
     "INSERT INTO players (id, name, token_hash, created_ms) VALUES ($1, $2, decode($3, 'hex'), $4)"
     " ON CONFLICT (id) DO UPDATE SET name = excluded.name, token_hash = excluded.token_hash"},
    // An upsert, never a delete and insert: deleting the room would cascade to its games and
    // moves.
    {"upsert_room",
     "INSERT INTO rooms (id, kind, seats, game_options, room_options, creator_id, status,"
     " game_number, created_ms, finished_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
     " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, seats = excluded.seats,"
     " game_options = excluded.game_options, room_options = excluded.room_options,"
     " creator_id = excluded.creator_id, status = excluded.status,"
     " game_number = excluded.game_number, finished_ms = excluded.finished_ms"},
    {"delete_seats", "DELETE FROM room_seats WHERE room_id = $1"},
    {"insert_seat",
     "INSERT INTO room_seats (room_id, seat, player_id, name, bot) VALUES ($1, $2, $3, $4, $5)"},
    {"upsert_game",
     "INSERT INTO games (room_id, game_number, seed, start_seq, started_ms, finished_ms)"
     " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (room_id, game_number) DO UPDATE SET"
     " seed = excluded.seed, start_seq = excluded.start_seq, started_ms = excluded.started_ms,"
     " finished_ms = excluded.finished_ms"},
    {"insert_move",
     "INSERT INTO moves (room_id, game_number, seq, seat, move, at_ms, state_hash)"
     " VALUES ($1, $2, $3, $4, $5, $6, $7)"},
    // Several moves in one statement: one array per column, in the order of insert_move's
    // parameters (insert_moves() below).
    {"insert_moves",
     "INSERT INTO moves (room_id, game_number, seq, seat, move, at_ms, state_hash)"
     " SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::integer[], $5::json[],"
     " $6::bigint[], $7::bigint[])"},
    // An abandoned room has no finished_ms (its game never ended): its age counts from its
    // last game's start. Cascades to seats, games and moves.
    {"prune_rooms",
     "DELETE FROM rooms WHERE status IN ('finished', 'abandoned') AND COALESCE(finished_ms,"
     " (SELECT max(started_ms) FROM games WHERE games.room_id = rooms.id), created_ms) < $1"},
};

// A PostgreSQL array literal of one column of `rows`: every element quoted, NULL as NULL.
std::string array_literal(const std::vector<const pg::Params*>& rows, std::size_t column) {
  std::string out = "{";
  for (const pg::Params* row : rows) {
    if (out.size() > 1) out += ',';
    const auto& value = (*row)[column];
    if (!value) {
      out += "NULL";
      continue;
    }
    out += '"';
    for (const char c : *value) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + '}';
}

// One insert_moves step for the insert_move parameters of several moves.
pg::Step insert_moves(const std::vector<const pg::Params*>& rows) {
  pg::Step step{"insert_moves", {}};
  for (std::size_t column = 0; column < 7; ++column) {
    step.params.emplace_back(array_literal(rows, column));
  }
  return step;
}

constexpr std::string_view kRoomColumns =
    "SELECT r.id, r.kind, r.seats, r.game_options, r.room_options, r.creator_id, r.status,"
    " r.game_number, r.created_ms, r.finished_ms, g.seed, g.start_seq, g.started_ms"
    " FROM rooms r LEFT JOIN games g ON g.room_id = r.id AND g.game_number = r.game_number";
constexpr std::string_view kUnfinished = "r.status IN ('waiting', 'playing')";

RoomRecord read_room(const pg::Result& rows, int row) {
  RoomRecord room;
  room.id = rows.text(row, 0);
  room.kind = rows.text(row, 1);
  room.seats = static_cast<int>(rows.integer(row, 2));
  room.game_options = parse_json(rows.text(row, 3), "room " + room.id + "'s game options");
  room.room_options = parse_json(rows.text(row, 4), "room " + room.id + "'s room options");
  room.creator_id = rows.optional_text(row, 5);
  const auto status = parse_status(rows.text(row, 6));
  if (!status) throw StoreError("room " + room.id + " has an unknown status");
  room.status = *status;
  room.game_number = static_cast<int>(rows.integer(row, 7));
  room.created_ms = rows.integer(row, 8);
  room.finished_ms = rows.optional_integer(row, 9);
  room.seed = static_cast<std::uint64_t>(rows.optional_integer(row, 10).value_or(0));
  room.start_seq = rows.optional_integer(row, 11).value_or(0);
  room.game_started_ms = rows.optional_integer(row, 12).value_or(0);
  room.occupants.resize(static_cast<std::size_t>(std::max(room.seats, 0)));
  return room;
}

// A seat from a row of (room_id, seat, player_id, name, bot).
void read_seat(const pg::Result& rows, int row, RoomRecord& room) {
  const auto seat = rows.integer(row, 1);
  if (seat < 0 || seat >= room.seats) throw StoreError("room " + room.id + " has a bad seat");
  room.occupants[static_cast<std::size_t>(seat)] =
      SeatRecord{rows.optional_text(row, 2), rows.text(row, 3), rows.optional_text(row, 4)};
}

// A move from a row of (room_id, game_number, seq, seat, move, at_ms, state_hash).
MoveRecord read_move(const pg::Result& rows, int row) {
  MoveRecord move{rows.text(row, 0),
                  static_cast<int>(rows.integer(row, 1)),
                  rows.integer(row, 2),
                  static_cast<int>(rows.integer(row, 3)),
                  nullptr,
                  rows.integer(row, 5),
                  std::nullopt};
  move.move = parse_json(rows.text(row, 4),
                         "room " + move.room_id + " move seq " + std::to_string(move.seq));
  if (auto hash = rows.optional_integer(row, 6))
    move.state_hash = static_cast<std::uint64_t>(*hash);
  return move;
}

constexpr std::string_view kMoveColumns =
    "m.room_id, m.game_number, m.seq, m.seat, m.move, m.at_ms, m.state_hash";

}  // namespace

bool is_postgres_url(std::string_view store) {
  return store.rfind("postgres://", 0) == 0 || store.rfind("postgresql://", 0) == 0;
}

std::string redact_store_url(std::string_view url) { return pg::redact_url(url); }

PostgresStore::PostgresStore(PostgresStoreOptions options)
    : options_(std::move(options)), target_(pg::describe_target(options_.url)) {
  if (options_.max_batch == 0) options_.max_batch = 1;
  writer_conn_ = connect_writer(true);
  reader_conn_ = pg::connect(options_.url, options_.io_timeout);
  writer_ = std::thread([this] { run_writer(); });
}

PostgresStore::~PostgresStore() { close(); }

std::unique_ptr<pg::Conn> PostgresStore::connect_writer(bool at_open) {
  auto conn = pg::connect(options_.url, options_.io_timeout);
  try {
    // A COMMIT's answer must mean the data is on disk: a server or role configured with
    // synchronous_commit = off would acknowledge commits it can still lose.
    if (conn->exec("SHOW synchronous_commit").text(0, 0) == "off") {
      conn->exec("SET synchronous_commit = on");
    }
    const auto deadline = std::chrono::steady_clock::now() + options_.lock_wait;
    while (conn->exec(std::string(kServerLock)).text(0, 0) != "t") {
      if (!at_open || std::chrono::steady_clock::now() >= deadline) {
        throw StoreError(target_ +
                         " is in use by another parlor-server (it holds the advisory lock " +
                         "1347572818/2)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (at_open) pg::open_schema(*conn, options_.url);
    for (const auto& [name, sql] : kStatements) conn->prepare(name, std::string(sql));
  } catch (const pg::Error& error) {
    throw StoreError("cannot prepare " + target_ + ": " + error.what());
  }
  return conn;
}

void PostgresStore::close() {
  {
    std::lock_guard lock(mutex_);
    if (!accepting_ && !writer_.joinable()) return;
    accepting_ = false;
    stopping_ = true;
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
  if (writer_conn_ && !writer_conn_->broken()) {
    // Released explicitly: a server started right after this one must not find the lock
    // still held while this connection's backend exits.
    try {
      writer_conn_->exec("SELECT pg_advisory_unlock_all()");
    } catch (const pg::Error& error) {
      report(std::string("cannot release the database: ") + error.what());
    }
  }
  writer_conn_.reset();
  std::lock_guard lock(reader_mutex_);
  reader_conn_.reset();
  reader_closed_ = true;
}

void PostgresStore::report(std::string_view message) const {
  if (options_.log_error) return options_.log_error(message);
  std::cerr << "parlor store: " << message << std::endl;
}

// ---- the queue -----------------------------------------------------------------------------

void PostgresStore::save_player(PlayerRecord player, DurableCallback on_durable) {
  enqueue({std::move(player), std::move(on_durable), std::chrono::steady_clock::now()});
}

void PostgresStore::save_room(RoomRecord room, DurableCallback on_durable) {
  enqueue({std::move(room), std::move(on_durable), std::chrono::steady_clock::now()});
}

void PostgresStore::append_move(MoveRecord move, DurableCallback on_durable) {
  enqueue({std::move(move), std::move(on_durable), std::chrono::steady_clock::now()});
}

void PostgresStore::prune_ended_rooms(UnixMillis before_ms) {
  enqueue({PruneBefore{before_ms}, nullptr, std::chrono::steady_clock::now()});
}

void PostgresStore::flush() {
  if (std::this_thread::get_id() == writer_.get_id()) {
    report("flush() called from an on_durable callback; it would never return");
    return;
  }
  std::promise<void> done;
  auto future = done.get_future();
  enqueue({FlushMarker{}, [&done](bool) { done.set_value(); }, std::chrono::steady_clock::now()});
  future.wait();
}

void PostgresStore::enqueue(Write write) {
  const bool is_flush = std::holds_alternative<FlushMarker>(write.record);
  std::unique_lock lock(mutex_);
  if (!accepting_) {
    lock.unlock();
    if (!is_flush) report("a write arrived after the store was closed; it is not stored");
    if (write.on_durable) write.on_durable(is_flush);
    return;
  }
  queue_.push_back(std::move(write));
  const std::size_t depth = queue_.size();
  if (is_flush) ++flushes_queued_;
  lock.unlock();
  // The writer needs waking only to start a batch or to cut its window short.
  if (depth == 1 || depth >= options_.max_batch || is_flush) wake_.notify_one();
}

StoreStats PostgresStore::stats() const {
  std::lock_guard lock(mutex_);
  StoreStats out = stats_;
  out.queued = queue_.size();
  return out;
}

// ---- the writer thread ---------------------------------------------------------------------

void PostgresStore::run_writer() {
  std::vector<Write> batch;
  std::vector<char> ok;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // stopping, and everything is committed
    // Group commit: give other writers until the oldest write's window closes to join.
    const auto window_end = queue_.front().queued_at + options_.batch_window;
    wake_.wait_until(lock, window_end, [this] {
      return queue_.size() >= options_.max_batch || flushes_queued_ > 0 || stopping_;
    });
    const auto take = static_cast<std::ptrdiff_t>(std::min(queue_.size(), options_.max_batch));
    batch.assign(std::make_move_iterator(queue_.begin()),
                 std::make_move_iterator(queue_.begin() + take));
    queue_.erase(queue_.begin(), queue_.begin() + take);
    for (const auto& write : batch) {
      if (std::holds_alternative<FlushMarker>(write.record)) --flushes_queued_;
    }
    lock.unlock();

    const bool committed = commit_batch(batch, ok);
    std::uint64_t records = 0;
    std::uint64_t failed = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (std::holds_alternative<FlushMarker>(batch[i].record)) continue;
      ++(ok[i] ? records : failed);
    }
    {
      std::lock_guard stats_lock(mutex_);
      if (committed) ++stats_.batches;
      stats_.records += records;
      stats_.failed_records += failed;
      stats_.largest_batch = std::max<std::uint64_t>(stats_.largest_batch, records);
    }
    // Callbacks after the commit, in queue order, outside the lock.
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!batch[i].on_durable) continue;
      try {
        batch[i].on_durable(ok[i] != 0);
      } catch (const std::exception& e) {
        report(std::string("an on_durable callback threw: ") + e.what());
      }
    }
    batch.clear();
    lock.lock();
  }
}

std::string PostgresStore::describe(const Write& write) {
  if (const auto* player = std::get_if<PlayerRecord>(&write.record)) return "player " + player->id;
  if (const auto* room = std::get_if<RoomRecord>(&write.record)) return "room " + room->id;
  if (const auto* move = std::get_if<MoveRecord>(&write.record)) {
    return "room " + move->room_id + " game " + std::to_string(move->game_number) + " move seq " +
           std::to_string(move->seq);
  }
  if (const auto* prune = std::get_if<PruneBefore>(&write.record)) {
    return "pruning rooms that ended before " + std::to_string(prune->before_ms);
  }
  return "flush";
}

void PostgresStore::add_steps(const Write& write, std::vector<pg::Step>& steps) {
  if (const auto* player = std::get_if<PlayerRecord>(&write.record)) {
    steps.push_back({"upsert_player",
                     {text(player->id, "the player id"), text(player->name, "the player's name"),
                      hex(player->token_hash), number(player->created_ms)}});
  } else if (const auto* room = std::get_if<RoomRecord>(&write.record)) {
    if (room->occupants.size() > static_cast<std::size_t>(std::max(room->seats, 0))) {
      throw std::invalid_argument(std::to_string(room->occupants.size()) + " occupants for " +
                                  std::to_string(room->seats) + " seats");
    }
    const std::string id = text(room->id, "the room id");
    // The room, its seats and its game row go in one transaction: all or nothing.
    steps.push_back(
        {"upsert_room",
         {id, text(room->kind, "the kind"), number(room->seats),
          text(room->game_options.dump(), "the game options"),
          text(room->room_options.dump(), "the room options"),
          text(room->creator_id, "the creator id"), std::string(status_name(room->status)),
          number(room->game_number), number(room->created_ms), number(room->finished_ms)}});
    steps.push_back({"delete_seats", {id}});
    for (std::size_t seat = 0; seat < room->occupants.size(); ++seat) {
      const auto& occupant = room->occupants[seat];
      if (!occupant) continue;
      steps.push_back(
          {"insert_seat",
           {id, number(static_cast<std::int64_t>(seat)),
            text(occupant->player_id, "a seat's player id"), text(occupant->name, "a seat's name"),
            text(occupant->bot, "a seat's bot")}});
    }
    if (room->game_number > 0) {
      steps.push_back(
          {"upsert_game",
           {id, number(room->game_number), number(bits(room->seed)), number(room->start_seq),
            number(room->game_started_ms), number(room->finished_ms)}});
    }
  } else if (const auto* move = std::get_if<MoveRecord>(&write.record)) {
    steps.push_back(
        {"insert_move",
         {text(move->room_id, "the room id"), number(move->game_number), number(move->seq),
          number(move->seat), text(move->move.dump(), "the move"), number(move->at_ms),
          move->state_hash ? std::optional<std::string>(number(bits(*move->state_hash)))
                           : std::nullopt}});
  } else if (const auto* prune = std::get_if<PruneBefore>(&write.record)) {
    steps.push_back({"prune_rooms", {number(prune->before_ms)}});
  }
}

bool PostgresStore::commit_batch(std::vector<Write>& batch, std::vector<char>& ok) {
  ok.assign(batch.size(), 0);
  const auto game_of = [&](std::size_t i) -> std::optional<std::pair<std::string, int>> {
    if (const auto* move = std::get_if<MoveRecord>(&batch[i].record)) {
      return std::pair(move->room_id, move->game_number);
    }
    return std::nullopt;
  };
  // Writes still to commit, in queue order, and their statements.
  std::vector<std::size_t> pending;
  std::vector<std::vector<pg::Step>> statements(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (std::holds_alternative<FlushMarker>(batch[i].record)) {
      ok[i] = 1;
      continue;
    }
    const auto game = game_of(i);
    try {
      if (game && broken_games_.contains(*game)) {
        throw std::runtime_error(
            "an earlier move of this game was not stored; refusing later ones so the log has "
            "no gap");
      }
      add_steps(batch[i], statements[i]);
      pending.push_back(i);
    } catch (const std::exception& e) {
      report(describe(batch[i]) + " was not stored: " + e.what());
      if (game) broken_games_.insert(*game);
    }
  }
  // Every write still pending fails: nothing of this batch is acknowledged.
  const auto fail_pending = [&](const std::string& why) {
    report("a batch of " + std::to_string(pending.size()) + " writes was not stored: " + why);
    for (const std::size_t i : pending) {
      if (const auto game = game_of(i)) broken_games_.insert(*game);
    }
    return false;
  };

  std::vector<pg::Step> steps;
  std::vector<std::size_t> owner;  // the write of each step; kNone: BEGIN or COMMIT
  constexpr auto kNone = static_cast<std::size_t>(-1);
  constexpr std::size_t kMoves = kNone - 1;  // a multi-row INSERT of several moves
  // Moves next to each other in the queue go as one multi-row INSERT — one statement for the
  // server to plan and run instead of one per move. Once such a statement is refused, every
  // write goes as its own statements so that the refusal names the write.
  bool one_statement_per_write = false;
  while (!pending.empty()) {
    if (writer_conn_ && writer_conn_->broken()) writer_conn_.reset();
    if (!writer_conn_) {
      try {
        writer_conn_ = connect_writer(false);
      } catch (const StoreError& error) {
        return fail_pending(error.what());
      }
    }
    steps.clear();
    owner.clear();
    steps.push_back({"begin", {}});
    owner.push_back(kNone);
    for (std::size_t k = 0; k < pending.size();) {
      const auto is_move = [&](std::size_t at) {
        return std::holds_alternative<MoveRecord>(batch[pending[at]].record);
      };
      std::size_t end = k;
      while (!one_statement_per_write && end < pending.size() && is_move(end)) ++end;
      if (end - k > 1) {
        std::vector<const pg::Params*> rows;
        for (std::size_t at = k; at < end; ++at) rows.push_back(&statements[pending[at]][0].params);
        steps.push_back(insert_moves(rows));
        owner.push_back(kMoves);
        k = end;
        continue;
      }
      for (const auto& step : statements[pending[k]]) {
        steps.push_back(step);
        owner.push_back(pending[k]);
      }
      ++k;
    }
    steps.push_back({"commit", {}});
    owner.push_back(kNone);

    pg::PipelineOutcome outcome;
    try {
      outcome = writer_conn_->pipeline(steps);
      if (outcome.failed && writer_conn_->in_transaction()) writer_conn_->exec("ROLLBACK");
    } catch (const pg::Error& error) {
      // The connection is in an unknown state (a COMMIT may or may not have happened): it is
      // dropped, the writes are reported failed, and the next batch reconnects.
      writer_conn_.reset();
      return fail_pending(std::string("the connection to the database failed: ") + error.what());
    }
    if (!outcome.failed) {
      for (const std::size_t i : pending) ok[i] = 1;
      return true;
    }
    const std::size_t refused = owner[*outcome.failed];
    if (refused == kMoves && refuses_one_write(outcome.sqlstate)) {
      one_statement_per_write = true;  // which move? sent one by one, the server says
      resent_batches_.fetch_add(1);
      continue;
    }
    if (refused == kNone || refused == kMoves || !refuses_one_write(outcome.sqlstate)) {
      return fail_pending((refused >= kMoves ? std::string("the transaction failed: ")
                                             : describe(batch[refused]) + " failed: ") +
                          outcome.message + " (SQLSTATE " + outcome.sqlstate + ")");
    }
    // That write alone is refused; the rest of the batch is sent again without it (and
    // without the later moves of its game).
    report(describe(batch[refused]) + " was not stored: " + outcome.message);
    const auto broken = game_of(refused);
    if (broken) broken_games_.insert(*broken);
    resent_batches_.fetch_add(1);
    std::erase_if(pending, [&](std::size_t i) {
      if (i == refused) return true;
      const auto game = game_of(i);
      if (i < refused || !game || !broken_games_.contains(*game)) return false;
      report(describe(batch[i]) +
             " was not stored: an earlier move of this game was not stored; refusing later ones "
             "so the log has no gap");
      return true;
    });
  }
  return false;
}

// ---- loading -------------------------------------------------------------------------------

namespace {

// One read-only transaction: everything loaded comes from the same committed snapshot.
template <typename Body>
auto in_snapshot(pg::Conn& conn, const std::string& target, Body body) {
  try {
    conn.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      auto result = body();
      conn.exec("COMMIT");
      return result;
    } catch (...) {
      if (!conn.broken()) conn.exec("ROLLBACK");
      throw;
    }
  } catch (const StoreError& error) {
    throw StoreError(target + ": " + error.what());
  } catch (const pg::Error& error) {
    throw StoreError("cannot read " + target + ": " + error.what());
  }
}

}  // namespace

// Runs `body` in a snapshot on the reader's connection, connecting first when there is none.
// A connection found broken (the server restarted, an idle connection was cut) is replaced
// and the read tried once more.
template <typename Body>
auto PostgresStore::with_reader(Body body) {
  std::lock_guard lock(reader_mutex_);
  if (reader_closed_) throw StoreError(target_ + " is closed");
  for (int attempt = 0;; ++attempt) {
    if (!reader_conn_) reader_conn_ = pg::connect(options_.url, options_.io_timeout);
    auto& conn = *reader_conn_;
    try {
      return in_snapshot(conn, target_, [&] { return body(conn); });
    } catch (const StoreError&) {
      if (!conn.broken()) throw;
      reader_conn_.reset();
      if (attempt > 0) throw;
    }
  }
}

LoadedState PostgresStore::load() {
  return with_reader([&](pg::Conn& conn) {
    LoadedState state;
    const auto players = conn.exec(
        "SELECT id, name, encode(token_hash, 'hex'), created_ms FROM players"
        " ORDER BY id COLLATE \"C\"");
    for (int row = 0; row < players.rows(); ++row) {
      PlayerRecord player{players.text(row, 0), players.text(row, 1), {}, players.integer(row, 3)};
      const std::string hash = players.text(row, 2);
      if (hash.size() != 2 * player.token_hash.size()) {
        throw StoreError("player " + player.id + " has a token hash of " +
                         std::to_string(hash.size() / 2) + " bytes");
      }
      for (std::size_t i = 0; i < player.token_hash.size(); ++i) {
        player.token_hash[i] =
            static_cast<unsigned char>(std::stoi(hash.substr(2 * i, 2), nullptr, 16));
      }
      state.players.push_back(std::move(player));
    }
    const auto rooms = conn.exec(std::string(kRoomColumns) + " WHERE " + std::string(kUnfinished) +
                                 " ORDER BY r.created_ms, r.id COLLATE \"C\"");
    std::map<std::string, std::size_t> index;
    for (int row = 0; row < rooms.rows(); ++row) {
      state.rooms.push_back({read_room(rooms, row), {}});
      index[state.rooms.back().room.id] = state.rooms.size() - 1;
    }
    const auto seats = conn.exec(
        "SELECT s.room_id, s.seat, s.player_id, s.name, s.bot FROM room_seats s"
        " JOIN rooms r ON r.id = s.room_id WHERE " +
        std::string(kUnfinished));
    for (int row = 0; row < seats.rows(); ++row) {
      read_seat(seats, row, state.rooms[index.at(seats.text(row, 0))].room);
    }
    // The current game's moves of every unfinished room, by seq.
    const auto moves = conn.exec("SELECT " + std::string(kMoveColumns) +
                                 " FROM moves m JOIN rooms r ON r.id = m.room_id"
                                 " AND r.game_number = m.game_number WHERE " +
                                 std::string(kUnfinished) + " ORDER BY m.room_id, m.seq");
    for (int row = 0; row < moves.rows(); ++row) {
      state.rooms[index.at(moves.text(row, 0))].moves.push_back(read_move(moves, row));
    }
    return state;
  });
}

std::optional<RoomHistory> PostgresStore::load_room(const std::string& room_id) {
  return with_reader([&](pg::Conn& conn) -> std::optional<RoomHistory> {
    const pg::Params id{text(room_id, "the room id")};
    const auto room = conn.exec(std::string(kRoomColumns) + " WHERE r.id = $1", id);
    if (room.rows() == 0) return std::nullopt;
    RoomHistory history{read_room(room, 0), {}};
    const auto seats = conn.exec(
        "SELECT room_id, seat, player_id, name, bot FROM room_seats WHERE room_id = $1", id);
    for (int row = 0; row < seats.rows(); ++row) read_seat(seats, row, history.room);
    const auto games = conn.exec(
        "SELECT game_number, seed, start_seq, started_ms, finished_ms FROM games"
        " WHERE room_id = $1 ORDER BY game_number",
        id);
    std::map<int, std::size_t> index;
    for (int row = 0; row < games.rows(); ++row) {
      GameRecord game;
      game.game_number = static_cast<int>(games.integer(row, 0));
      game.seed = static_cast<std::uint64_t>(games.integer(row, 1));
      game.start_seq = games.integer(row, 2);
      game.started_ms = games.integer(row, 3);
      game.finished_ms = games.optional_integer(row, 4);
      index[game.game_number] = history.games.size();
      history.games.push_back(std::move(game));
    }
    const auto moves = conn.exec("SELECT " + std::string(kMoveColumns) +
                                     " FROM moves m WHERE m.room_id = $1"
                                     " ORDER BY m.game_number, m.seq",
                                 id);
    for (int row = 0; row < moves.rows(); ++row) {
      MoveRecord move = read_move(moves, row);
      history.games[index.at(move.game_number)].moves.push_back(std::move(move));
    }
    return history;
  });
}

}  // namespace parlor::server
