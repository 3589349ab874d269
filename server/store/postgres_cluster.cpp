#include "server/store/postgres_cluster.h"

#include <algorithm>

#include "server/store/pg_conn.h"
#include "server/store/postgres_rows.h"
#include "server/store/postgres_schema.h"

namespace parlor::server {

PostgresCluster::PostgresCluster(std::string url, std::chrono::milliseconds io_timeout)
    : url_(std::move(url)), io_timeout_(io_timeout), target_(pg::describe_target(url_)) {}

PostgresCluster::~PostgresCluster() = default;

template <typename Body>
auto PostgresCluster::with_conn(Body body) {
  std::lock_guard lock(mutex_);
  for (int attempt = 0;; ++attempt) {
    if (!conn_) conn_ = pg::connect(url_, io_timeout_);
    auto& conn = *conn_;
    try {
      return body(conn);
    } catch (const pg::Error& error) {
      const bool broken = conn.broken();
      if (!broken && conn.in_transaction()) conn.exec("ROLLBACK");
      if (broken) conn_.reset();
      if (!broken || attempt > 0) throw StoreError("cannot use " + target_ + ": " + error.what());
    } catch (const StoreError&) {
      // A record that cannot be read; the transaction is ended before the error goes on.
      if (!conn.broken() && conn.in_transaction()) conn.exec("ROLLBACK");
      throw;
    }
  }
}

namespace {

// A text[] literal for one query parameter.
std::string text_array(const std::vector<std::string>& items) {
  std::string array = "{";
  for (const std::string& item : items) {
    if (array.size() > 1) array += ',';
    array += '"';
    for (const char c : item) {
      if (c == '"' || c == '\\') array += '\\';
      array += c;
    }
    array += '"';
  }
  array += '}';
  return array;
}

}  // namespace

std::vector<OwnedRoom> PostgresCluster::rooms_without_live_owner(
    const std::vector<std::string>& live_nodes, const std::vector<std::string>& held, int limit) {
  return with_conn([&](pg::Conn& conn) {
    const auto rows = conn.exec("SELECT r.id, r.owner, r.epoch FROM rooms r WHERE " +
                                    std::string(pg::kUnfinished) +
                                    " AND r.owner <> ALL($1::text[]) AND r.id <> ALL($2::text[])"
                                    " ORDER BY r.created_ms LIMIT $3",
                                {text_array(live_nodes), text_array(held), std::to_string(limit)});
    std::vector<OwnedRoom> out;
    out.reserve(static_cast<std::size_t>(rows.rows()));
    for (int row = 0; row < rows.rows(); ++row) {
      out.push_back({rows.text(row, 0), rows.text(row, 1), rows.integer(row, 2)});
    }
    return out;
  });
}

bool PostgresCluster::fence(const std::string& room, const std::string& node, std::int64_t epoch) {
  return with_conn([&](pg::Conn& conn) {
    // Autocommit: the new epoch is visible to every other writer once this returns.
    const auto rows = conn.exec("UPDATE rooms r SET epoch = $3, owner = $2 WHERE r.id = $1 AND " +
                                    std::string(pg::kUnfinished) + " AND r.epoch < $3",
                                {room, node, std::to_string(epoch)});
    return std::string(PQcmdTuples(rows.get())) == "1";
  });
}

std::optional<OwnedRoom> PostgresCluster::owner(const std::string& room) {
  return with_conn([&](pg::Conn& conn) -> std::optional<OwnedRoom> {
    const auto rows =
        conn.exec("SELECT r.id, r.owner, r.epoch FROM rooms r WHERE r.id = $1", {room});
    if (rows.rows() == 0) return std::nullopt;
    return OwnedRoom{rows.text(0, 0), rows.text(0, 1), rows.integer(0, 2)};
  });
}

std::optional<TakenRoom> PostgresCluster::load_room(const std::string& room_id,
                                                    const std::vector<std::string>& spectators) {
  return with_conn([&](pg::Conn& conn) -> std::optional<TakenRoom> {
    conn.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const pg::Params id{room_id};
    const auto room = conn.exec(
        std::string(pg::kRoomColumns) + " WHERE r.id = $1 AND " + std::string(pg::kUnfinished), id);
    if (room.rows() == 0) {
      conn.exec("COMMIT");
      return std::nullopt;
    }
    TakenRoom out{{pg::read_room(room, 0), {}}, {}, {}};
    const auto seats = conn.exec(
        "SELECT " + std::string(pg::kSeatColumns) + " FROM room_seats s WHERE s.room_id = $1", id);
    for (int row = 0; row < seats.rows(); ++row) pg::read_seat(seats, row, out.room.room);
    const auto moves = conn.exec("SELECT " + std::string(pg::kMoveColumns) +
                                     " FROM moves m WHERE m.room_id = $1 AND m.game_number = $2"
                                     " ORDER BY m.seq",
                                 {room_id, std::to_string(out.room.room.game_number)});
    for (int row = 0; row < moves.rows(); ++row) {
      out.room.moves.push_back(pg::read_move(moves, row));
    }
    // The seated players and the creator: a node that takes the room over may never have
    // seen them.
    const auto players = conn.exec(
        "SELECT " + std::string(pg::kPlayerColumns) +
            " FROM players p WHERE p.id IN (SELECT s.player_id FROM room_seats s"
            " WHERE s.room_id = $1) OR p.id = (SELECT r.creator_id FROM rooms r WHERE r.id = $1)",
        id);
    for (int row = 0; row < players.rows(); ++row) {
      out.players.push_back(pg::read_player(players, row));
    }
    for (const std::string& spectator : spectators) {
      const bool known = std::any_of(out.players.begin(), out.players.end(),
                                     [&](const PlayerRecord& p) { return p.id == spectator; });
      if (!known) {
        const auto found = conn.exec(
            "SELECT " + std::string(pg::kPlayerColumns) + " FROM players p WHERE p.id = $1",
            pg::Params{spectator});
        if (found.rows() == 0) continue;  // not a player this cluster stored
        out.players.push_back(pg::read_player(found, 0));
      }
      out.spectators.push_back(spectator);
    }
    conn.exec("COMMIT");
    return out;
  });
}

std::optional<PlayerRecord> PostgresCluster::find_player(const TokenHash& token_hash) {
  return with_conn([&](pg::Conn& conn) -> std::optional<PlayerRecord> {
    const auto rows = conn.exec("SELECT " + std::string(pg::kPlayerColumns) +
                                    " FROM players p WHERE p.token_hash = decode($1, 'hex')",
                                {pg::hex(token_hash)});
    if (rows.rows() == 0) return std::nullopt;
    return pg::read_player(rows, 0);
  });
}

std::string PostgresCluster::link_secret(const std::string& candidate) {
  return with_conn([&](pg::Conn& conn) {
    // Outside the versioned schema: a table of the cluster's own, made by whichever node
    // first needs it; the INSERT keeps the first secret when nodes race.
    conn.exec(
        "CREATE TABLE IF NOT EXISTS cluster_secret (only_row boolean PRIMARY KEY DEFAULT true"
        " CHECK (only_row), secret text NOT NULL)");
    conn.exec("INSERT INTO cluster_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING",
              {candidate});
    const auto rows = conn.exec("SELECT secret FROM cluster_secret");
    return rows.text(0, 0);
  });
}

}  // namespace parlor::server
