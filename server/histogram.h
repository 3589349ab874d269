// Prometheus histograms with fixed bucket bounds: a lock-free one for hot paths (relaxed
// atomics in a slot of the observing thread's own, one bucket increment per observation) and a
// plain one for values already kept under a lock (the store's writer). Both render the same
// text exposition.
#pragma once

#include <array>
#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string_view>

#include "server/sharded_counter.h"

namespace parlor::server {

// The shortest text that reads back as `value` (a sum must not lose digits to a stream's
// default precision of six).
inline std::string_view shortest_number(double value, std::array<char, 32>& buffer) {
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return {buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data())};
}

// The bucket of `value`: the first bound it does not pass, or N for the +Inf bucket.
template <std::size_t N>
std::size_t bucket_of(const std::array<double, N>& bounds, double value) {
  std::size_t i = 0;
  while (i < N && value > bounds[i]) ++i;
  return i;
}

// Plain counts: buckets[i] counts values <= bounds[i] (not cumulative); the last, the rest.
template <std::size_t N>
struct HistogramCounts {
  std::array<std::uint64_t, N + 1> buckets{};
  double sum = 0;
  std::uint64_t count = 0;

  void observe(const std::array<double, N>& bounds, double value) {
    ++buckets[bucket_of(bounds, value)];
    sum += value;
    ++count;
  }
};

// Observed from any thread: each thread counts in its own slot (see ShardedCounter), so the
// observations of different I/O threads do not share cache lines; a snapshot sums the slots.
template <std::size_t N>
class ShardedHistogram {
 public:
  explicit ShardedHistogram(const std::array<double, N>& bounds) : bounds_(bounds) {}

  void observe(double value) {
    Slot& slot = slots_[this_thread_shard()];
    slot.buckets[bucket_of(bounds_, value)].fetch_add(1, std::memory_order_relaxed);
    slot.sum.fetch_add(value, std::memory_order_relaxed);
    slot.count.fetch_add(1, std::memory_order_relaxed);
  }
  // A scrape reads bucket by bucket while observations go on: the counts may be off by the
  // observations in flight, never more.
  HistogramCounts<N> snapshot() const {
    HistogramCounts<N> out;
    for (std::size_t s = 0; s < kCounterShards; ++s) {
      const Slot& slot = slots_[s];
      for (std::size_t i = 0; i <= N; ++i) {
        out.buckets[i] += slot.buckets[i].load(std::memory_order_relaxed);
      }
      out.sum += slot.sum.load(std::memory_order_relaxed);
      out.count += slot.count.load(std::memory_order_relaxed);
    }
    return out;
  }

 private:
  struct alignas(kCacheLineBytes) Slot {
    std::array<std::atomic<std::uint64_t>, N + 1> buckets{};
    std::atomic<double> sum{0};
    std::atomic<std::uint64_t> count{0};
  };
  const std::array<double, N>& bounds_;
  const std::unique_ptr<Slot[]> slots_ = std::make_unique<Slot[]>(kCounterShards);
};

// One series of a histogram: `labels` is "" or `key="value",...` without braces. The HELP and
// TYPE lines are the caller's (once per metric name, before its first series).
template <std::size_t N>
void write_histogram(std::ostream& out, std::string_view name, std::string_view labels,
                     const std::array<double, N>& bounds, const HistogramCounts<N>& counts) {
  const std::string_view comma = labels.empty() ? "" : ",";
  std::array<char, 32> buffer{};
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < N; ++i) {
    cumulative += counts.buckets[i];
    out << name << "_bucket{" << labels << comma << "le=\"" << shortest_number(bounds[i], buffer)
        << "\"} " << cumulative << '\n';
  }
  cumulative += counts.buckets[N];
  // The +Inf bucket is the count by definition: take the larger, so a scrape racing an
  // observation never shows a bucket above +Inf.
  const std::uint64_t total = cumulative > counts.count ? cumulative : counts.count;
  out << name << "_bucket{" << labels << comma << "le=\"+Inf\"} " << total << '\n';
  const std::string_view open = labels.empty() ? "" : "{";
  const std::string_view close = labels.empty() ? "" : "}";
  out << name << "_sum" << open << labels << close << ' ' << shortest_number(counts.sum, buffer)
      << '\n'
      << name << "_count" << open << labels << close << ' ' << total << '\n';
}

}  // namespace parlor::server
