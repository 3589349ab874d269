// The seeded, portable random source for game state.
//
// std::mt19937_64's output sequence is fixed by the C++ standard, but
// std::uniform_int_distribution and std::shuffle are not: their results differ
// between standard libraries, which would change deals (and so break replays
// and crash recovery) when the toolchain changes. Parlor therefore draws raw
// 64-bit words from mt19937_64 and maps them with its own unbiased uniform_int
// and Fisher-Yates. rng_test.cpp pins the exact output for a fixed seed.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <utility>

namespace parlor {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t next() { return engine_(); }

  // Uniform integer in [0, bound); bound must be > 0. Rejection sampling keeps it unbiased.
  std::uint64_t uniform(std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % bound + 1) % bound;
    std::uint64_t value;
    do {
      value = engine_();
    } while (value > limit);
    return value % bound;
  }

  // Fisher-Yates, from the back.
  template <typename T>
  void shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(uniform(i));
      std::swap(items[i - 1], items[j]);
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace parlor
