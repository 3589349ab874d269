// Counters and histograms with a slot per thread: what threads add is all in the sum, and
// threads that count at the same time count in slots of their own.
#include "server/sharded_counter.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "server/histogram.h"

namespace parlor::server {
namespace {

TEST(ShardedCounter, SumsWhatOneThreadAdds) {
  ShardedCounter counter;
  EXPECT_EQ(counter.load(), 0U);
  counter.add();
  counter.add(41);
  EXPECT_EQ(counter.load(), 42U);
}

TEST(ShardedCounter, SumsWhatManyThreadsAddAtOnce) {
  // More threads than slots, so some share one: the sum is exact all the same.
  constexpr std::size_t kThreads = kCounterShards + 8;
  constexpr std::uint64_t kAdds = 2000;
  ShardedCounter counter;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&counter] {
      for (std::uint64_t i = 0; i < kAdds; ++i) counter.add(3);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.load(), kThreads * kAdds * 3);
}

TEST(ShardedCounter, ThreadsStartedTogetherTakeDistinctSlots) {
  constexpr std::size_t kThreads = 8;
  std::array<std::size_t, kThreads> shards{};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&shards, t] { shards[t] = this_thread_shard(); });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t a = 0; a < kThreads; ++a) {
    for (std::size_t b = a + 1; b < kThreads; ++b) EXPECT_NE(shards[a], shards[b]);
  }
}

TEST(ShardedCounter, AThreadKeepsItsSlot) {
  const std::size_t first = this_thread_shard();
  EXPECT_LT(first, kCounterShards);
  EXPECT_EQ(this_thread_shard(), first);
}

TEST(ShardedCounter, EachSlotHasACacheLineOfItsOwn) {
  EXPECT_EQ(sizeof(CounterSlot), kCacheLineBytes);
  EXPECT_EQ(alignof(CounterSlot), kCacheLineBytes);
}

constexpr std::array<double, 3> kBounds = {1, 10, 100};

TEST(ShardedHistogram, SumsTheObservationsOfEveryThread) {
  ShardedHistogram<kBounds.size()> histogram{kBounds};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&histogram] {
      histogram.observe(0.5);  // <= 1
      histogram.observe(5);    // <= 10
      histogram.observe(500);  // +Inf
    });
  }
  for (std::thread& thread : threads) thread.join();
  const HistogramCounts<kBounds.size()> counts = histogram.snapshot();
  EXPECT_EQ(counts.buckets[0], 4U);
  EXPECT_EQ(counts.buckets[1], 4U);
  EXPECT_EQ(counts.buckets[2], 0U);
  EXPECT_EQ(counts.buckets[3], 4U);
  EXPECT_EQ(counts.count, 12U);
  EXPECT_DOUBLE_EQ(counts.sum, 4 * (0.5 + 5 + 500));
}

}  // namespace
}  // namespace parlor::server
