#include "server/metrics.h"

#include <sstream>

#include "server/process_metrics.h"
#include "server/store/store.h"

namespace parlor::server {

void Metrics::count_reject(const std::string& code) {
  std::lock_guard lock(rejects_mutex_);
  ++rejects_[code];
}

void Metrics::count_protocol_close(std::uint16_t code) {
  std::lock_guard lock(rejects_mutex_);
  ++protocol_closes_[code];
}

void Metrics::count_refusal(const std::string& reason) {
  {
    std::lock_guard lock(rejects_mutex_);
    ++refusals_[reason];
  }
  connections_refused.fetch_add(1, std::memory_order_relaxed);
}

void Metrics::observe_move_latency(std::int64_t microseconds) {
  move_latency_.observe(static_cast<double>(microseconds) / 1e6);
}

GameMetrics& Metrics::game(const std::string& kind) {
  std::lock_guard lock(games_mutex_);
  auto& slot = games_[kind];
  if (!slot) slot = std::make_unique<GameMetrics>();
  return *slot;
}

std::string Metrics::prometheus_text(const std::map<std::string, std::int64_t>& rooms_by_status,
                                     const StoreStats* store) const {
  std::ostringstream out;
  auto counter = [&](const char* name, const char* help, const char* type, auto value) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n'
        << name << ' ' << value << '\n';
  };
  counter("parlor_connections", "Open WebSocket connections.", "gauge", connections.load());
  counter("parlor_connections_total", "WebSocket connections accepted.", "counter",
          connections_total.load());
  counter("parlor_connections_refused_total",
          "Connections refused at the door (per-IP limits, shutdown, oversize headers).", "counter",
          connections_refused.load());
  counter("parlor_moves_accepted_total", "Moves accepted by the rules engines.", "counter",
          moves_accepted.load());
  counter("parlor_slow_consumers_closed_total",
          "Connections closed because their outbound queue passed its bound.", "counter",
          slow_consumers_closed.load());
  counter("parlor_outbound_frames_dropped_total",
          "Frames not delivered because their connection was closed as a slow consumer.", "counter",
          frames_dropped.load());
  counter("parlor_bytes_in_total", "WebSocket payload bytes received.", "counter", bytes_in.load());
  counter("parlor_bytes_out_total", "WebSocket payload bytes queued for sending.", "counter",
          bytes_out.load());
  counter("parlor_frames_out_total", "WebSocket data frames handed to sockets.", "counter",
          frames_out.load());
  counter("parlor_socket_writes_total",
          "Socket writes that carried them: a client's frames queued together share one write.",
          "counter", socket_writes.load());
  counter("parlor_accept_errors_total", "Errors accepting TCP connections.", "counter",
          accept_errors.load());
  counter("parlor_lobby_subscribers", "Connections subscribed to the lobby push.", "gauge",
          lobby_subscribers.load());
  counter("parlor_players", "Players known in memory (connected or not).", "gauge", players.load());
  counter("parlor_lobby_push_frames_total",
          "room_added, room_changed and room_removed frames sent to lobby subscribers.", "counter",
          lobby_push_frames.load());
  counter("parlor_cluster_rooms_taken_over_total",
          "Rooms this node took over from nodes that died (cluster mode).", "counter",
          cluster_rooms_taken_over.load());
  counter("parlor_cluster_rooms_let_go_total",
          "Rooms this node let go because another node had taken them over (cluster mode).",
          "counter", cluster_rooms_let_go.load());
  counter("parlor_cluster_requests_forwarded_total",
          "Room requests of clients connected here forwarded to the room's node (cluster mode).",
          "counter", cluster_requests_forwarded.load());
  counter("parlor_cluster_link_bytes_sent_total",
          "Bytes this node wrote to its links with other nodes (cluster mode).", "counter",
          cluster_link_bytes_sent.load());
  counter("parlor_cluster_superseded_total",
          "Requests and resumes of a player's connection older than its newer one, refused and "
          "closed with 4000 (cluster mode).",
          "counter", cluster_superseded.load());

  out << "# HELP parlor_rooms Rooms by status.\n# TYPE parlor_rooms gauge\n";
  for (const auto& [status, count] : rooms_by_status) {
    out << "parlor_rooms{status=\"" << status << "\"} " << count << '\n';
  }
  out << "# HELP parlor_rejects_total Requests refused, by error code.\n"
         "# TYPE parlor_rejects_total counter\n";
  {
    std::lock_guard lock(rejects_mutex_);
    for (const auto& [code, count] : rejects_) {
      out << "parlor_rejects_total{code=\"" << code << "\"} " << count << '\n';
    }
    out << "# HELP parlor_protocol_closes_total WebSocket connections failed for breaking the "
           "protocol, by close code.\n# TYPE parlor_protocol_closes_total counter\n";
    for (const auto& [code, count] : protocol_closes_) {
      out << "parlor_protocol_closes_total{code=\"" << code << "\"} " << count << '\n';
    }
    out << "# HELP parlor_connections_refused_by_reason_total Connections refused at the door, "
           "by reason.\n# TYPE parlor_connections_refused_by_reason_total counter\n";
    for (const auto& [reason, count] : refusals_) {
      out << "parlor_connections_refused_by_reason_total{reason=\"" << reason << "\"} " << count
          << '\n';
    }
  }
  out << "# HELP parlor_move_latency_seconds From a move's frame read to its state pushes "
         "queued.\n# TYPE parlor_move_latency_seconds histogram\n";
  write_histogram(out, "parlor_move_latency_seconds", "", kLatencyBoundsSeconds,
                  move_latency_.snapshot());
  counter("parlor_bot_takeovers_total",
          "Seats a bot took over because their player stayed away past the grace period.",
          "counter", bot_takeovers.load());
  write_game_metrics(out);
  if (store) write_store_metrics(out, *store);
  write_process_metrics(out);
  return out.str();
}

void Metrics::write_game_metrics(std::ostream& out) const {
  std::lock_guard lock(games_mutex_);
  out << "# HELP parlor_game_moves_total Moves accepted, by game kind and by who made them "
         "(player, bot, or timeout: the turn clock ran out).\n"
         "# TYPE parlor_game_moves_total counter\n";
  for (const auto& [kind, game] : games_) {
    const std::string labels = "game=\"" + kind + "\",by=";
    out << "parlor_game_moves_total{" << labels << "\"player\"} " << game->moves_by_player.load()
        << "\nparlor_game_moves_total{" << labels << "\"bot\"} " << game->moves_by_bot.load()
        << "\nparlor_game_moves_total{" << labels << "\"timeout\"} "
        << game->moves_by_timeout.load() << '\n';
  }
  out << "# HELP parlor_game_moves_refused_total Players' moves refused by the game's rules, by "
         "game kind.\n# TYPE parlor_game_moves_refused_total counter\n";
  for (const auto& [kind, game] : games_) {
    out << "parlor_game_moves_refused_total{game=\"" << kind << "\"} " << game->moves_refused.load()
        << '\n';
  }
  out << "# HELP parlor_engine_call_seconds Calls to the rules engines of external games, "
         "answered or not, by game kind.\n# TYPE parlor_engine_call_seconds histogram\n";
  for (const auto& [kind, game] : games_) {
    write_histogram(out, "parlor_engine_call_seconds", "game=\"" + kind + "\"",
                    kLatencyBoundsSeconds, game->engine_call_seconds.snapshot());
  }
  out << "# HELP parlor_engine_call_failures_total Calls to a rules engine that failed (no "
         "answer in time, an HTTP error, an answer that breaks the contract), by game kind.\n"
         "# TYPE parlor_engine_call_failures_total counter\n";
  for (const auto& [kind, game] : games_) {
    out << "parlor_engine_call_failures_total{game=\"" << kind << "\"} "
        << game->engine_call_failures.load() << '\n';
  }
}

void Metrics::write_store_metrics(std::ostream& out, const StoreStats& store) {
  out << "# HELP parlor_store_queue_depth Writes waiting for the store's writer.\n"
         "# TYPE parlor_store_queue_depth gauge\nparlor_store_queue_depth "
      << store.queued
      << "\n# HELP parlor_store_writes_total Writes committed by the store.\n"
         "# TYPE parlor_store_writes_total counter\nparlor_store_writes_total "
      << store.records
      << "\n# HELP parlor_store_write_failures_total Writes the store reported failed or fenced "
         "(each failed move stops its game).\n"
         "# TYPE parlor_store_write_failures_total counter\nparlor_store_write_failures_total "
      << store.failed_records
      << "\n# HELP parlor_store_batch_failures_total Store transactions that did not commit.\n"
         "# TYPE parlor_store_batch_failures_total counter\nparlor_store_batch_failures_total "
      << store.failed_batches
      << "\n# HELP parlor_store_batch_size Writes per committed store transaction (group "
         "commit).\n# TYPE parlor_store_batch_size histogram\n";
  write_histogram(out, "parlor_store_batch_size", "", kStoreBatchSizeBounds, store.batch_sizes);
  out << "# HELP parlor_store_commit_seconds Time of one store transaction, from BEGIN to "
         "COMMIT returned (the fsync included).\n# TYPE parlor_store_commit_seconds histogram\n";
  write_histogram(out, "parlor_store_commit_seconds", "", kStoreCommitBoundsSeconds,
                  store.commit_seconds);
}

}  // namespace parlor::server
