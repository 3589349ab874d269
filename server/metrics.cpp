#include "server/metrics.h"

#include <sstream>

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
  std::size_t i = 0;
  while (i < kLatencyBucketsUs.size() && microseconds > kLatencyBucketsUs[i]) ++i;
  latency_buckets_[i].fetch_add(1, std::memory_order_relaxed);
  latency_sum_us_.fetch_add(static_cast<std::uint64_t>(microseconds), std::memory_order_relaxed);
  latency_count_.fetch_add(1, std::memory_order_relaxed);
}

std::string Metrics::prometheus_text(
    const std::map<std::string, std::int64_t>& rooms_by_status) const {
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
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kLatencyBucketsUs.size(); ++i) {
    cumulative += latency_buckets_[i].load();
    out << "parlor_move_latency_seconds_bucket{le=\""
        << static_cast<double>(kLatencyBucketsUs[i]) / 1e6 << "\"} " << cumulative << '\n';
  }
  cumulative += latency_buckets_.back().load();
  out << "parlor_move_latency_seconds_bucket{le=\"+Inf\"} " << cumulative << '\n'
      << "parlor_move_latency_seconds_sum " << static_cast<double>(latency_sum_us_.load()) / 1e6
      << '\n'
      << "parlor_move_latency_seconds_count " << latency_count_.load() << '\n';
  return out.str();
}

}  // namespace parlor::server
