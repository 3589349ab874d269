#include "server/store/postgres_store.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <map>
#include <stdexcept>

#include "server/store/pg_conn.h"
#include "server/store/postgres_rows.h"
#include "server/store/postgres_schema.h"
#include "server/thread_name.h"

namespace parlor::server {

using pg::kMoveColumns;
using pg::kRoomColumns;
using pg::kUnfinished;

namespace {

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

// A refusal of one statement — a constraint or bad data (SQLSTATE classes 23 and 22) — is
// that write's failure alone; anything else (the connection, the server, the schema) fails
// the whole batch.
// A fenced write (cluster mode: the room has a newer owner) is refused alone too.
bool refuses_one_write(const std::string& sqlstate) {
  return sqlstate.rfind("23", 0) == 0 || sqlstate.rfind("22", 0) == 0 ||
         sqlstate == pg::kFencedState;
}

// A deadlock or serialization failure (class 40) says nothing about the writes: the server
// chose this transaction to abort, and the same batch is sent again. Two nodes' batches can
// deadlock on rooms one of them took over from the other.
bool worth_resending(const std::string& sqlstate) { return sqlstate.rfind("40", 0) == 0; }
constexpr int kMaxResends = 5;

// Per write of a batch: 0 failed, kStored durable, kFencedOut refused by fencing.
constexpr char kStored = 1;
constexpr char kFencedOut = 2;

// Held by the writer's connection while the store is open: one server per database, as
// with SQLite's lock file, unless the servers are the nodes of a cluster (rooms then belong
// to nodes, and fencing keeps each room's writes to its owner). It dies with the connection.
constexpr std::string_view kServerLock = "SELECT pg_try_advisory_lock(1347572818, 2)";

// The writer's prepared statements.
constexpr std::pair<const char*, std::string_view> kStatements[] = {
    {"begin", "BEGIN"},
    {"commit", "COMMIT"},
    {"upsert_player",
     "INSERT INTO players (id, name, token_hash, created_ms, last_seen_ms)"
     " VALUES ($1, $2, decode($3, 'hex'), $4, $5)"
     " ON CONFLICT (id) DO UPDATE SET name = excluded.name, token_hash = excluded.token_hash,"
     " last_seen_ms = GREATEST(players.last_seen_ms, excluded.last_seen_ms)"},
    // An upsert, never a delete and insert: deleting the room would cascade to its games and
    // moves.
    {"upsert_room",
     "INSERT INTO rooms (id, kind, seats, game_options, room_options, creator_id, status,"
     " game_number, created_ms, finished_ms, epoch, owner)"
     " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
     " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, seats = excluded.seats,"
     " game_options = excluded.game_options, room_options = excluded.room_options,"
     " creator_id = excluded.creator_id, status = excluded.status,"
     " game_number = excluded.game_number, finished_ms = excluded.finished_ms,"
     " epoch = excluded.epoch, owner = excluded.owner"},
    {"delete_seats", "DELETE FROM room_seats WHERE room_id = $1"},
    {"insert_seat",
     "INSERT INTO room_seats (room_id, seat, player_id, name, bot) VALUES ($1, $2, $3, $4, $5)"},
    {"upsert_game",
     "INSERT INTO games (room_id, game_number, seed, start_seq, started_ms, finished_ms)"
     " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (room_id, game_number) DO UPDATE SET"
     " seed = excluded.seed, start_seq = excluded.start_seq, started_ms = excluded.started_ms,"
     " finished_ms = excluded.finished_ms"},
    {"insert_move",
     "INSERT INTO moves (room_id, game_number, seq, seat, move, at_ms, state_hash, epoch)"
     " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"},
    // Several moves in one statement: one array per column, in the order of insert_move's
    // parameters (insert_moves() below).
    {"insert_moves",
     "INSERT INTO moves (room_id, game_number, seq, seat, move, at_ms, state_hash, epoch)"
     " SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::integer[], $5::json[],"
     " $6::bigint[], $7::bigint[], $8::bigint[])"},
    // An abandoned room has no finished_ms (its game never ended): its age counts from its
    // last game's start. Cascades to seats, games and moves.
    {"prune_rooms",
     "DELETE FROM rooms WHERE status IN ('finished', 'abandoned') AND COALESCE(finished_ms,"
     " (SELECT max(started_ms) FROM games WHERE games.room_id = rooms.id), created_ms) < $1"},
    // Players who leave nothing behind (store.h, prune_idle_players).
    {"prune_players",
     "DELETE FROM players WHERE last_seen_ms < $1"
     " AND NOT EXISTS (SELECT 1 FROM ratings WHERE ratings.player_id = players.id)"
     " AND NOT EXISTS (SELECT 1 FROM room_seats WHERE room_seats.player_id = players.id)"
     " AND NOT EXISTS (SELECT 1 FROM rooms WHERE rooms.creator_id = players.id)"},
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
  for (std::size_t column = 0; column < 8; ++column) {
    step.params.emplace_back(array_literal(rows, column));
  }
  return step;
}

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
  writer_ = std::thread([this] {
    name_this_thread("parlor-store");
    run_writer();
  });
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
    while (options_.exclusive && conn->exec(std::string(kServerLock)).text(0, 0) != "t") {
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

void PostgresStore::record_rated_game(RatedGameRecord game, DurableCallback on_durable) {
  enqueue({std::move(game), std::move(on_durable), std::chrono::steady_clock::now()});
}

void PostgresStore::prune_ended_rooms(UnixMillis before_ms) {
  enqueue({PruneBefore{before_ms}, nullptr, std::chrono::steady_clock::now()});
}

void PostgresStore::prune_idle_players(UnixMillis before_ms) {
  enqueue({PrunePlayers{before_ms}, nullptr, std::chrono::steady_clock::now()});
}

void PostgresStore::flush() {
  if (std::this_thread::get_id() == writer_.get_id()) {
    report("flush() called from an on_durable callback; it would never return");
    return;
  }
  std::promise<void> done;
  auto future = done.get_future();
  enqueue({FlushMarker{}, [&done](WriteResult) { done.set_value(); },
           std::chrono::steady_clock::now()});
  future.wait();
}

void PostgresStore::enqueue(Write write) {
  const bool is_flush = std::holds_alternative<FlushMarker>(write.record);
  std::unique_lock lock(mutex_);
  if (!accepting_) {
    lock.unlock();
    if (!is_flush) report("a write arrived after the store was closed; it is not stored");
    if (write.on_durable) write.on_durable(is_flush ? WriteResult::kDurable : WriteResult::kFailed);
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

    const auto commit_started = std::chrono::steady_clock::now();
    const bool committed = commit_batch(batch, ok);
    const std::chrono::duration<double> commit_took =
        std::chrono::steady_clock::now() - commit_started;
    std::uint64_t records = 0;
    std::uint64_t failed = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (std::holds_alternative<FlushMarker>(batch[i].record)) continue;
      ++(ok[i] == kStored ? records : failed);
    }
    {
      std::lock_guard stats_lock(mutex_);
      if (committed) ++stats_.batches;
      count_batch(stats_, committed, records, commit_took.count());
      stats_.records += records;
      stats_.failed_records += failed;
      stats_.largest_batch = std::max<std::uint64_t>(stats_.largest_batch, records);
    }
    // Callbacks after the commit, in queue order, outside the lock.
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!batch[i].on_durable) continue;
      try {
        batch[i].on_durable(ok[i] == kStored      ? WriteResult::kDurable
                            : ok[i] == kFencedOut ? WriteResult::kFenced
                                                  : WriteResult::kFailed);
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
  if (const auto* idle = std::get_if<PrunePlayers>(&write.record)) {
    return "pruning players last seen before " + std::to_string(idle->before_ms);
  }
  if (const auto* rated = std::get_if<RatedGameRecord>(&write.record)) {
    return "the ratings of room " + rated->room_id + " game " + std::to_string(rated->game_number);
  }
  return "flush";
}

void PostgresStore::add_steps(const Write& write, std::vector<pg::Step>& steps) {
  if (const auto* player = std::get_if<PlayerRecord>(&write.record)) {
    steps.push_back(
        {"upsert_player",
         {text(player->id, "the player id"), text(player->name, "the player's name"),
          pg::hex(player->token_hash), number(player->created_ms), number(player->last_seen_ms)}});
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
          text(room->creator_id, "the creator id"), std::string(pg::status_name(room->status)),
          number(room->game_number), number(room->created_ms), number(room->finished_ms),
          number(room->epoch), text(room->owner, "the owner")}});
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
    // The text the room has (a player's frame carried it, dump()'s bytes), or dump()'s.
    std::string move_text = move->move_text.empty() ? move->move.dump() : move->move_text;
    steps.push_back(
        {"insert_move",
         {text(move->room_id, "the room id"), number(move->game_number), number(move->seq),
          number(move->seat), text(std::move(move_text), "the move"), number(move->at_ms),
          move->state_hash ? std::optional<std::string>(number(bits(*move->state_hash)))
                           : std::nullopt,
          number(move->epoch)}});
  } else if (const auto* prune = std::get_if<PruneBefore>(&write.record)) {
    steps.push_back({"prune_rooms", {number(prune->before_ms)}});
  } else if (const auto* idle = std::get_if<PrunePlayers>(&write.record)) {
    steps.push_back({"prune_players", {number(idle->before_ms)}});
  }
}

bool PostgresStore::commit_batch(std::vector<Write>& batch, std::vector<char>& ok) {
  const auto is_rated = [](const Write& write) {
    return std::holds_alternative<RatedGameRecord>(write.record);
  };
  if (std::none_of(batch.begin(), batch.end(), is_rated)) return commit_plain(batch, ok);
  // The writes between rated games go as pipelined transactions, each rated game as its own,
  // in queue order.
  ok.assign(batch.size(), 0);
  bool committed = false;
  std::vector<Write> part;
  std::vector<char> part_ok;
  for (std::size_t i = 0; i < batch.size();) {
    if (is_rated(batch[i])) {
      ok[i] = commit_rated(std::get<RatedGameRecord>(batch[i].record));
      committed = committed || ok[i] == kStored;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < batch.size() && !is_rated(batch[end])) ++end;
    part.assign(std::make_move_iterator(batch.begin() + static_cast<std::ptrdiff_t>(i)),
                std::make_move_iterator(batch.begin() + static_cast<std::ptrdiff_t>(end)));
    committed = commit_plain(part, part_ok) || committed;
    for (std::size_t k = 0; k < part.size(); ++k) {
      batch[i + k] = std::move(part[k]);
      ok[i + k] = part_ok[k];
    }
    i = end;
  }
  return committed;
}

namespace {

std::string real(double value) {
  std::array<char, 32> out{};
  std::snprintf(out.data(), out.size(), "%.17g", value);
  return out.data();
}

double real(const pg::Result& rows, int row, int column) {
  const std::string value = rows.text(row, column);
  char* end = nullptr;
  const double out = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0') {
    throw pg::Error("column " + std::to_string(column) + " holds \"" + value + "\", not a number");
  }
  return out;
}

}  // namespace

char PostgresStore::commit_rated(const RatedGameRecord& game) {
  const std::string what =
      "the ratings of room " + game.room_id + " game " + std::to_string(game.game_number);
  std::vector<ratings::Side> sides;
  pg::Params head;
  try {
    sides = rated_sides(game);
    if (sides.size() < 2) throw std::invalid_argument("fewer than two sides");
    for (const RatedSeat& seat : game.seats) {
      text(seat.player_id, "a player id");
      text(seat.name, "a name");
    }
    head = {text(game.room_id, "the room id"),
            number(game.game_number),
            text(game.kind, "the kind"),
            number(game.finished_ms),
            std::string(ratings::system_name(sides.size() == 2 ? ratings::System::kGlicko2
                                                               : ratings::System::kWengLin)),
            number(static_cast<std::int64_t>(sides.size())),
            text(game.result.dump(), "the result")};
  } catch (const std::exception& e) {
    report(what + " were not stored: " + e.what());
    return 0;
  }
  if (const auto it = fenced_rooms_.find(game.room_id);
      it != fenced_rooms_.end() && game.epoch <= it->second) {
    return kFencedOut;
  }
  // Every identity once, in one order: two nodes rating games of the same players lock their
  // rows in the same order, and the second waits for the first's commit.
  std::set<std::string> identities;
  for (const RatedSeat& seat : game.seats) identities.insert(seat.player_id);
  for (int attempt = 0;; ++attempt) {
    if (writer_conn_ && writer_conn_->broken()) writer_conn_.reset();
    if (!writer_conn_) {
      try {
        writer_conn_ = connect_writer(false);
      } catch (const StoreError& error) {
        report(what + " were not stored: " + error.what());
        return 0;
      }
    }
    auto& conn = *writer_conn_;
    try {
      conn.exec("BEGIN");
      // Fencing, as the room triggers do: a newer owner of the room rates its games itself.
      const auto room =
          conn.exec("SELECT epoch, owner FROM rooms WHERE id = $1 FOR SHARE", {head[0]});
      if (room.rows() == 1 &&
          (room.integer(0, 0) > game.epoch ||
           (room.integer(0, 0) == game.epoch && room.text(0, 1) != game.owner))) {
        conn.exec("ROLLBACK");
        report(what + " were refused: another node owns room " + game.room_id + " now");
        auto& floor = fenced_rooms_[game.room_id];
        floor = std::max(floor, game.epoch);
        return kFencedOut;
      }
      const auto inserted = conn.exec(
          "INSERT INTO rated_games (room_id, game_number, kind, finished_ms, system, sides, result)"
          " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (room_id, game_number) DO NOTHING"
          " RETURNING 1",
          head);
      if (inserted.rows() == 0) {  // rated already: a replay of the game's end
        conn.exec("COMMIT");
        return kStored;
      }
      std::map<std::string, ratings::Rating> current;
      for (const std::string& id : identities) {
        conn.exec(
            "INSERT INTO ratings (player_id, kind, name, rating, deviation, volatility, games,"
            " updated_ms) VALUES ($1, $2, '', $3, $4, $5, 0, $6)"
            " ON CONFLICT (player_id, kind) DO NOTHING",
            {id, head[2], real(ratings::kInitialRating), real(ratings::kInitialDeviation),
             real(ratings::kInitialVolatility), head[3]});
        const auto row = conn.exec(
            "SELECT rating, deviation, volatility FROM ratings WHERE player_id = $1 AND kind = $2"
            " FOR UPDATE",
            {id, head[2]});
        current[id] = {real(row, 0, 0), real(row, 0, 1), real(row, 0, 2)};
      }
      std::vector<ratings::Rating> before;
      for (const RatedSeat& seat : game.seats) before.push_back(current.at(seat.player_id));
      const ratings::GameRatings rated = ratings::rate_game(sides, before);
      for (std::size_t seat = 0; seat < game.seats.size(); ++seat) {
        const RatedSeat& who = game.seats[seat];
        const ratings::Rating& after = rated.after[seat];
        conn.exec(
            "INSERT INTO rated_seats (room_id, game_number, seat, player_id, name, kind,"
            " finished_ms, side, rank, abandoned, rating_before, deviation_before,"
            " volatility_before, rating_after, deviation_after, volatility_after)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            {head[0], head[1], number(static_cast<std::int64_t>(seat)), who.player_id, who.name,
             head[2], head[3], number(who.side),
             number(game.side_ranks[static_cast<std::size_t>(who.side)]),
             std::string(who.abandoned ? "true" : "false"), real(before[seat].rating),
             real(before[seat].deviation), real(before[seat].volatility), real(after.rating),
             real(after.deviation), real(after.volatility)});
      }
      for (const auto& [id, entry] : merged_by_identity(game, rated.after)) {
        conn.exec(
            "UPDATE ratings SET name = $3, rating = $4, deviation = $5, volatility = $6,"
            " games = games + 1, updated_ms = $7 WHERE player_id = $1 AND kind = $2",
            {id, head[2], entry.first, real(entry.second.rating), real(entry.second.deviation),
             real(entry.second.volatility), head[3]});
      }
      conn.exec("COMMIT");
      return kStored;
    } catch (const pg::Error& error) {
      try {
        if (!conn.broken() && conn.in_transaction()) conn.exec("ROLLBACK");
      } catch (const pg::Error&) {
        writer_conn_.reset();
      }
      if (worth_resending(error.sqlstate()) && attempt < kMaxResends) {
        resent_batches_.fetch_add(1);
        continue;
      }
      if (error.sqlstate().empty() && writer_conn_ && writer_conn_->broken()) writer_conn_.reset();
      report(what + " were not stored: " + error.what());
      return 0;
    } catch (const std::exception& e) {
      try {
        if (!conn.broken() && conn.in_transaction()) conn.exec("ROLLBACK");
      } catch (const pg::Error&) {
        writer_conn_.reset();
      }
      report(what + " were not stored: " + e.what());
      return 0;
    }
  }
}

bool PostgresStore::commit_plain(std::vector<Write>& batch, std::vector<char>& ok) {
  ok.assign(batch.size(), 0);
  const auto game_of =
      [&](std::size_t i) -> std::optional<std::tuple<std::string, int, std::int64_t>> {
    if (const auto* move = std::get_if<MoveRecord>(&batch[i].record)) {
      return std::tuple(move->room_id, move->game_number, move->epoch);
    }
    return std::nullopt;
  };
  // The room and epoch of a room or move write (fencing).
  const auto epoch_of = [&](std::size_t i) -> std::optional<std::pair<std::string, std::int64_t>> {
    if (const auto* move = std::get_if<MoveRecord>(&batch[i].record)) {
      return std::pair(move->room_id, move->epoch);
    }
    if (const auto* room = std::get_if<RoomRecord>(&batch[i].record)) {
      return std::pair(room->id, room->epoch);
    }
    return std::nullopt;
  };
  const auto is_fenced = [&](std::size_t i) {
    const auto at = epoch_of(i);
    if (!at) return false;
    const auto it = fenced_rooms_.find(at->first);
    return it != fenced_rooms_.end() && at->second <= it->second;
  };
  // Writes still to commit, in queue order, and their statements.
  std::vector<std::size_t> pending;
  std::vector<std::vector<pg::Step>> statements(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (std::holds_alternative<FlushMarker>(batch[i].record)) {
      ok[i] = kStored;
      continue;
    }
    if (is_fenced(i)) {
      ok[i] = kFencedOut;  // the room's later writes from the same owner, refused at once
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
  int resends = 0;
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
      for (const std::size_t i : pending) ok[i] = kStored;
      return true;
    }
    if (worth_resending(outcome.sqlstate) && ++resends <= kMaxResends) {
      resent_batches_.fetch_add(1);
      continue;
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
    if (outcome.sqlstate == pg::kFencedState) {
      // Another node owns the room now: this write and every later one of the room from this
      // owner are refused, and the rest of the batch is sent again.
      const auto fenced = epoch_of(refused);
      report(describe(batch[refused]) + " was refused: " + outcome.message +
             "; another node owns the room now");
      if (fenced) {
        auto& floor = fenced_rooms_[fenced->first];
        floor = std::max(floor, fenced->second);
      }
      resent_batches_.fetch_add(1);
      std::erase_if(pending, [&](std::size_t i) {
        if (!is_fenced(i)) return false;
        ok[i] = kFencedOut;
        return true;
      });
      continue;
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
    const auto players = conn.exec("SELECT " + std::string(pg::kPlayerColumns) +
                                   " FROM players p ORDER BY p.id COLLATE \"C\"");
    for (int row = 0; row < players.rows(); ++row) {
      PlayerRecord player = pg::read_player(players, row);
      state.players.push_back(std::move(player));
    }
    const auto rooms = conn.exec(std::string(kRoomColumns) + " WHERE " + std::string(kUnfinished) +
                                 " ORDER BY r.created_ms, r.id COLLATE \"C\"");
    std::map<std::string, std::size_t> index;
    for (int row = 0; row < rooms.rows(); ++row) {
      state.rooms.push_back({pg::read_room(rooms, row), {}});
      index[state.rooms.back().room.id] = state.rooms.size() - 1;
    }
    const auto seats = conn.exec("SELECT " + std::string(pg::kSeatColumns) +
                                 " FROM room_seats s JOIN rooms r ON r.id = s.room_id WHERE " +
                                 std::string(kUnfinished));
    for (int row = 0; row < seats.rows(); ++row) {
      pg::read_seat(seats, row, state.rooms[index.at(seats.text(row, 0))].room);
    }
    // The current game's moves of every unfinished room, by seq.
    const auto moves = conn.exec("SELECT " + std::string(kMoveColumns) +
                                 " FROM moves m JOIN rooms r ON r.id = m.room_id"
                                 " AND r.game_number = m.game_number WHERE " +
                                 std::string(kUnfinished) + " ORDER BY m.room_id, m.seq");
    for (int row = 0; row < moves.rows(); ++row) {
      state.rooms[index.at(moves.text(row, 0))].moves.push_back(pg::read_move(moves, row));
    }
    return state;
  });
}

std::optional<RoomHistory> PostgresStore::load_room(const std::string& room_id) {
  return with_reader([&](pg::Conn& conn) -> std::optional<RoomHistory> {
    const pg::Params id{text(room_id, "the room id")};
    const auto room = conn.exec(std::string(kRoomColumns) + " WHERE r.id = $1", id);
    if (room.rows() == 0) return std::nullopt;
    RoomHistory history{pg::read_room(room, 0), {}};
    const auto seats = conn.exec(
        "SELECT " + std::string(pg::kSeatColumns) + " FROM room_seats s WHERE s.room_id = $1", id);
    for (int row = 0; row < seats.rows(); ++row) pg::read_seat(seats, row, history.room);
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
      MoveRecord move = pg::read_move(moves, row);
      history.games[index.at(move.game_number)].moves.push_back(std::move(move));
    }
    return history;
  });
}

std::vector<RatingRow> PostgresStore::load_leaderboard(const std::string& kind, int limit) {
  return with_reader([&](pg::Conn& conn) {
    const auto rows = conn.exec(
        "SELECT player_id, name, rating, deviation, volatility, games, updated_ms FROM ratings"
        " WHERE kind = $1 AND games > 0"
        " ORDER BY rating - 2 * deviation DESC, player_id COLLATE \"C\" LIMIT $2",
        {text(kind, "the kind"), number(limit)});
    std::vector<RatingRow> out;
    out.reserve(static_cast<std::size_t>(rows.rows()));
    for (int row = 0; row < rows.rows(); ++row) {
      out.push_back({rows.text(row, 0),
                     rows.text(row, 1),
                     kind,
                     {real(rows, row, 2), real(rows, row, 3), real(rows, row, 4)},
                     static_cast<int>(rows.integer(row, 5)),
                     rows.integer(row, 6)});
    }
    return out;
  });
}

std::optional<PlayerRatings> PostgresStore::load_player_ratings(const std::string& player_id,
                                                                int games) {
  return with_reader([&](pg::Conn& conn) -> std::optional<PlayerRatings> {
    const pg::Params id{text(player_id, "the player id")};
    const auto rows = conn.exec(
        "SELECT kind, name, rating, deviation, volatility, games, updated_ms FROM ratings"
        " WHERE player_id = $1 AND games > 0 ORDER BY kind COLLATE \"C\"",
        id);
    if (rows.rows() == 0) return std::nullopt;
    PlayerRatings out;
    out.id = player_id;
    UnixMillis latest = -1;
    for (int row = 0; row < rows.rows(); ++row) {
      RatingRow rating{player_id,
                       rows.text(row, 1),
                       rows.text(row, 0),
                       {real(rows, row, 2), real(rows, row, 3), real(rows, row, 4)},
                       static_cast<int>(rows.integer(row, 5)),
                       rows.integer(row, 6)};
      if (rating.updated_ms > latest) {
        latest = rating.updated_ms;
        out.name = rating.name;
      }
      out.ratings.push_back(std::move(rating));
    }
    const auto played = conn.exec(
        "SELECT s.room_id, s.game_number, s.kind, s.finished_ms, g.system, s.seat, s.rank,"
        " g.sides, s.abandoned, s.rating_before, s.deviation_before, s.volatility_before,"
        " s.rating_after, s.deviation_after, s.volatility_after"
        " FROM rated_seats s JOIN rated_games g ON g.room_id = s.room_id"
        " AND g.game_number = s.game_number WHERE s.player_id = $1"
        " ORDER BY s.finished_ms DESC, s.room_id COLLATE \"C\" DESC, s.game_number DESC, s.seat"
        " LIMIT $2",
        {id[0], number(games)});
    for (int row = 0; row < played.rows(); ++row) {
      out.games.push_back({played.text(row, 0),
                           static_cast<int>(played.integer(row, 1)),
                           played.text(row, 2),
                           played.integer(row, 3),
                           played.text(row, 4),
                           static_cast<int>(played.integer(row, 5)),
                           static_cast<int>(played.integer(row, 6)),
                           static_cast<int>(played.integer(row, 7)),
                           played.text(row, 8) == "t",
                           {real(played, row, 9), real(played, row, 10), real(played, row, 11)},
                           {real(played, row, 12), real(played, row, 13), real(played, row, 14)}});
    }
    return out;
  });
}

}  // namespace parlor::server
