// Process-wide counters exported at GET /metrics in Prometheus text format
// (docs/OPERATIONS.md lists them all). The counters of every move (bytes, frames, writes,
// moves, the move latency) are sharded by thread, so I/O threads on different cores do not
// trade their cache lines; the other counters are relaxed atomics, and the rarely-touched
// reject map takes a lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "server/histogram.h"
#include "server/sharded_counter.h"

namespace parlor::server {

struct StoreStats;

// Seconds: from 50 us (a move on a warm path) to 2.5 s (an engine near its timeout).
inline constexpr std::array<double, 14> kLatencyBoundsSeconds = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5};

// What happened in the rooms of one game kind. A table finds its kind's counters once, when
// it is made, and then counts without a lock.
struct GameMetrics {
  ShardedCounter moves_by_player;
  ShardedCounter moves_by_bot;
  ShardedCounter moves_by_timeout;              // the turn clock ran out
  std::atomic<std::uint64_t> moves_refused{0};  // a player's move answered with an error
  // External games: each call to the rules engine, answered or not.
  ShardedHistogram<kLatencyBoundsSeconds.size()> engine_call_seconds{kLatencyBoundsSeconds};
  std::atomic<std::uint64_t> engine_call_failures{0};
};

class Metrics {
 public:
  std::atomic<std::int64_t> connections{0};
  std::atomic<std::uint64_t> connections_total{0};
  std::atomic<std::uint64_t> connections_refused{0};
  ShardedCounter moves_accepted;
  std::atomic<std::uint64_t> slow_consumers_closed{0};
  std::atomic<std::uint64_t> frames_dropped{0};
  ShardedCounter bytes_in;
  ShardedCounter bytes_out;
  ShardedCounter frames_out;     // WebSocket data frames handed to sockets
  ShardedCounter socket_writes;  // the writes that carried them
  std::atomic<std::uint64_t> accept_errors{0};
  // Seats a bot took over because their player stayed away past the grace period.
  std::atomic<std::uint64_t> bot_takeovers{0};
  // Cluster mode: rooms this node took over from dead nodes, and rooms it let go because
  // another node had taken them.
  std::atomic<std::uint64_t> cluster_rooms_taken_over{0};
  std::atomic<std::uint64_t> cluster_rooms_let_go{0};
  // Room requests this node forwarded to the room's owner, and bytes it wrote to links.
  std::atomic<std::uint64_t> cluster_requests_forwarded{0};
  std::atomic<std::uint64_t> cluster_link_bytes_sent{0};
  // Requests and resumes of a connection older than the player's newer connection, which
  // this node (a room's owner) refused and had closed with 4000.
  std::atomic<std::uint64_t> cluster_superseded{0};
  // Lobby push: connections subscribed now, and the frames sent to them.
  std::atomic<std::int64_t> lobby_subscribers{0};
  // Players known in memory now (player retention forgets idle ones).
  std::atomic<std::int64_t> players{0};
  std::atomic<std::uint64_t> lobby_push_frames{0};

  void count_reject(const std::string& code);
  // A WebSocket connection failed for breaking the protocol (1002, 1003, 1007, 1009).
  void count_protocol_close(std::uint16_t code);
  // A connection refused at the door, by why (`connections_per_ip`, `handshakes_per_ip`,
  // `shutting_down`, `header_too_large`, `bad_forwarded_for`); also counted in connections_refused.
  void count_refusal(const std::string& reason);
  void observe_move_latency(std::int64_t microseconds);

  // The counters of game `kind`, made on first use; the reference stays valid for the life
  // of the Metrics.
  GameMetrics& game(const std::string& kind);

  // `rooms_by_status` is passed in by the lobby; `store` is null without a store.
  std::string prometheus_text(const std::map<std::string, std::int64_t>& rooms_by_status,
                              const StoreStats* store) const;

 private:
  void write_game_metrics(std::ostream& out) const;
  static void write_store_metrics(std::ostream& out, const StoreStats& store);

  mutable std::mutex rejects_mutex_;
  std::map<std::string, std::uint64_t> rejects_;
  std::map<std::uint16_t, std::uint64_t> protocol_closes_;
  std::map<std::string, std::uint64_t> refusals_;
  ShardedHistogram<kLatencyBoundsSeconds.size()> move_latency_{kLatencyBoundsSeconds};
  mutable std::mutex games_mutex_;
  std::map<std::string, std::unique_ptr<GameMetrics>> games_;
};

}  // namespace parlor::server
