// Process-wide counters exported at GET /metrics in Prometheus text format.
// Hot-path counters are relaxed atomics; the rarely-touched reject map takes a lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace parlor::server {

class Metrics {
 public:
  // Upper bounds of the move-to-broadcast latency buckets, in microseconds.
  static constexpr std::array<std::int64_t, 12> kLatencyBucketsUs = {
      50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000};

  std::atomic<std::int64_t> connections{0};
  std::atomic<std::uint64_t> connections_total{0};
  std::atomic<std::uint64_t> connections_refused{0};
  std::atomic<std::uint64_t> moves_accepted{0};
  std::atomic<std::uint64_t> slow_consumers_closed{0};
  std::atomic<std::uint64_t> frames_dropped{0};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::atomic<std::uint64_t> frames_out{0};     // WebSocket data frames handed to sockets
  std::atomic<std::uint64_t> socket_writes{0};  // the writes that carried them
  std::atomic<std::uint64_t> accept_errors{0};
  // Cluster mode: rooms this node took over from dead nodes, and rooms it let go because
  // another node had taken them.
  std::atomic<std::uint64_t> cluster_rooms_taken_over{0};
  std::atomic<std::uint64_t> cluster_rooms_let_go{0};
  // Room requests this node forwarded to the room's owner, and bytes it wrote to links.
  std::atomic<std::uint64_t> cluster_requests_forwarded{0};
  std::atomic<std::uint64_t> cluster_link_bytes_sent{0};
  // Lobby push: connections subscribed now, and the frames sent to them.
  std::atomic<std::int64_t> lobby_subscribers{0};
  std::atomic<std::uint64_t> lobby_push_frames{0};

  void count_reject(const std::string& code);
  // A WebSocket connection failed for breaking the protocol (1002, 1003, 1007, 1009).
  void count_protocol_close(std::uint16_t code);
  // A connection refused at the door, by why (`connections_per_ip`, `handshakes_per_ip`,
  // `shutting_down`, `header_too_large`); also counted in connections_refused.
  void count_refusal(const std::string& reason);
  void observe_move_latency(std::int64_t microseconds);

  // `room_counts` lines (rooms by status) are passed in by the lobby.
  std::string prometheus_text(const std::map<std::string, std::int64_t>& rooms_by_status) const;

 private:
  mutable std::mutex rejects_mutex_;
  std::map<std::string, std::uint64_t> rejects_;
  std::map<std::uint16_t, std::uint64_t> protocol_closes_;
  std::map<std::string, std::uint64_t> refusals_;
  std::array<std::atomic<std::uint64_t>, kLatencyBucketsUs.size() + 1> latency_buckets_{};
  std::atomic<std::uint64_t> latency_sum_us_{0};
  std::atomic<std::uint64_t> latency_count_{0};
};

}  // namespace parlor::server
