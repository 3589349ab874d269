// Counting from one thread and from two at once: into one shared atomic, whose cache line the
// two cores take from each other at every add, and into a ShardedCounter, where each thread
// adds to a line of its own. The Move pair does a move's counting on the metrics the server
// keeps (one frame read, five frames queued, four socket writes, the move and its latency),
// once as shared atomics laid out side by side and once as the server's sharded counters.
// Compare items_per_second (adds or moves per second, all threads together): with a line of
// its own per thread, two threads should do about twice what one does.
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "server/histogram.h"
#include "server/metrics.h"
#include "server/sharded_counter.h"

namespace parlor::server {
namespace {

alignas(kCacheLineBytes) std::atomic<std::uint64_t> shared_counter{0};
ShardedCounter sharded_counter;

void BM_SharedAtomic(benchmark::State& state) {
  for (auto _ : state) {
    (void)_;
    shared_counter.fetch_add(1, std::memory_order_relaxed);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SharedAtomic)->Threads(1)->Threads(2)->UseRealTime();

void BM_ShardedCounter(benchmark::State& state) {
  for (auto _ : state) {
    (void)_;
    sharded_counter.add();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ShardedCounter)->Threads(1)->Threads(2)->UseRealTime();

// The move's counters as one set of process-wide atomics, as every I/O thread would share them.
struct SharedMoveCounters {
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::atomic<std::uint64_t> frames_out{0};
  std::atomic<std::uint64_t> socket_writes{0};
  std::atomic<std::uint64_t> moves_accepted{0};
  std::atomic<std::uint64_t> moves_by_player{0};
  std::array<std::atomic<std::uint64_t>, kLatencyBoundsSeconds.size() + 1> latency_buckets{};
  std::atomic<double> latency_sum{0};
  std::atomic<std::uint64_t> latency_count{0};
};
SharedMoveCounters shared_move_counters;

constexpr std::uint64_t kFrameBytes = 180;
constexpr int kFramesPerMove = 5;
constexpr int kWritesPerMove = 4;
constexpr double kLatencySeconds = 0.0004;

void BM_MoveShared(benchmark::State& state) {
  SharedMoveCounters& m = shared_move_counters;
  for (auto _ : state) {
    (void)_;
    m.bytes_in.fetch_add(60, std::memory_order_relaxed);
    for (int i = 0; i < kFramesPerMove; ++i) {
      m.bytes_out.fetch_add(kFrameBytes, std::memory_order_relaxed);
    }
    for (int i = 0; i < kWritesPerMove; ++i) {
      m.frames_out.fetch_add(1, std::memory_order_relaxed);
      m.socket_writes.fetch_add(1, std::memory_order_relaxed);
    }
    m.moves_by_player.fetch_add(1, std::memory_order_relaxed);
    m.moves_accepted.fetch_add(1, std::memory_order_relaxed);
    m.latency_buckets[bucket_of(kLatencyBoundsSeconds, kLatencySeconds)].fetch_add(
        1, std::memory_order_relaxed);
    m.latency_sum.fetch_add(kLatencySeconds, std::memory_order_relaxed);
    m.latency_count.fetch_add(1, std::memory_order_relaxed);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MoveShared)->Threads(1)->Threads(2)->UseRealTime();

Metrics metrics;
GameMetrics& game_metrics = metrics.game("bigtwo");

void BM_MoveSharded(benchmark::State& state) {
  for (auto _ : state) {
    (void)_;
    metrics.bytes_in.add(60);
    for (int i = 0; i < kFramesPerMove; ++i) metrics.bytes_out.add(kFrameBytes);
    for (int i = 0; i < kWritesPerMove; ++i) {
      metrics.frames_out.add();
      metrics.socket_writes.add();
    }
    game_metrics.moves_by_player.add();
    metrics.moves_accepted.add();
    metrics.observe_move_latency(400);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MoveSharded)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace parlor::server
