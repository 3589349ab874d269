// A map from string ids to shared objects that many threads read at once, split into shards,
// each with its own mutex on a cache line of its own: lookups of different ids from different
// cores rarely take the same lock or pull the same line. The lobby finds rooms by id through
// one (Lobby::find): every room request, a move included, looks its room up, and under the
// lobby's one mutex that was a process-wide lock on the move path (docs/BENCHMARKS.md,
// "Threads: one against two, and a model for more cores").
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "server/sharded_counter.h"  // kCacheLineBytes

namespace parlor::server {

template <typename T>
class ShardedMap {
 public:
  // Enough that lookups from 64 cores spread out; an unused shard is a mutex and an empty map.
  static constexpr std::size_t kShards = 64;

  // Sets `id` to `value`, replacing what was there.
  void put(const std::string& id, std::shared_ptr<T> value) {
    Shard& shard = shard_of(id);
    std::lock_guard lock(shard.mutex);
    shard.values[id] = std::move(value);
  }
  // Removes `id` if it is still `value`, not something put under the same id since.
  void erase(const std::string& id, const T* value) {
    Shard& shard = shard_of(id);
    std::lock_guard lock(shard.mutex);
    if (auto it = shard.values.find(id); it != shard.values.end() && it->second.get() == value) {
      shard.values.erase(it);
    }
  }
  // What `id` holds, or null.
  std::shared_ptr<T> find(const std::string& id) const {
    const Shard& shard = shard_of(id);
    std::lock_guard lock(shard.mutex);
    const auto it = shard.values.find(id);
    return it == shard.values.end() ? nullptr : it->second;
  }

 private:
  struct alignas(kCacheLineBytes) Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<T>> values;
  };
  static std::size_t index_of(const std::string& id) {
    return std::hash<std::string>{}(id) % kShards;
  }
  Shard& shard_of(const std::string& id) { return shards_[index_of(id)]; }
  const Shard& shard_of(const std::string& id) const { return shards_[index_of(id)]; }

  std::array<Shard, kShards> shards_;
};

}  // namespace parlor::server
