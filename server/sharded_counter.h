// A counter that many threads add to without sharing a cache line. Each thread adds to its own
// slot (a line of its own), so the counting on the move path stays in the core's cache; the
// reader (a /metrics scrape) sums the slots. One shared atomic instead would have every add
// take the line from the core that added last.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace parlor::server {

// Slots per counter: one per I/O thread up to 64 cores. Threads past that share slots two by
// two, which costs some of the gain but stays exact (the adds are atomic).
inline constexpr std::size_t kCounterShards = 64;
// A fixed 64 (x86-64, most ARM cores) rather than hardware_destructive_interference_size,
// whose value GCC warns may differ between compilers and so across a header's users.
inline constexpr std::size_t kCacheLineBytes = 64;

// The calling thread's slot, handed out in turn to threads as they first count: any 64
// threads get distinct slots unless more than 64 others took one between them.
inline std::size_t this_thread_shard() {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t shard =
      next.fetch_add(1, std::memory_order_relaxed) % kCounterShards;
  return shard;
}

// One thread's share of a counter, on a cache line of its own.
struct alignas(kCacheLineBytes) CounterSlot {
  std::atomic<std::uint64_t> value{0};
};

class ShardedCounter {
 public:
  void add(std::uint64_t n = 1) {
    slots_[this_thread_shard()].value.fetch_add(n, std::memory_order_relaxed);
  }
  // The sum of the slots. Adds in flight on other threads may be missing, never more: two
  // reads in a row never go down.
  std::uint64_t load() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < kCounterShards; ++i) {
      sum += slots_[i].value.load(std::memory_order_relaxed);
    }
    return sum;
  }

 private:
  // Apart from the counter: the structs that hold counters keep their plain layout, and what
  // every thread reads of the counter itself (this pointer) is never written.
  const std::unique_ptr<CounterSlot[]> slots_ = std::make_unique<CounterSlot[]>(kCounterShards);
};

}  // namespace parlor::server
