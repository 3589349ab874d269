// The map rooms are found in: what is put is found, an erase removes only what it names, and
// readers and writers on many threads at once see each id either absent or as put.
#include "server/sharded_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace parlor::server {
namespace {

TEST(ShardedMap, FindsWhatWasPutAndNothingElse) {
  ShardedMap<int> map;
  EXPECT_EQ(map.find("a1b2c"), nullptr);
  // Ids enough to land in every shard.
  for (int i = 0; i < 1000; ++i) map.put("room" + std::to_string(i), std::make_shared<int>(i));
  for (int i = 0; i < 1000; ++i) {
    const auto found = map.find("room" + std::to_string(i));
    ASSERT_NE(found, nullptr) << i;
    EXPECT_EQ(*found, i);
  }
  EXPECT_EQ(map.find("room1000"), nullptr);
  EXPECT_EQ(map.find(""), nullptr);
}

TEST(ShardedMap, PutReplacesAndEraseRemovesOnlyTheValueItNames) {
  ShardedMap<int> map;
  auto first = std::make_shared<int>(1);
  auto second = std::make_shared<int>(2);
  map.put("r", first);
  map.put("r", second);  // a room loaded again under the same id
  EXPECT_EQ(map.find("r"), second);
  // The first one going away later must not take the second with it.
  map.erase("r", first.get());
  EXPECT_EQ(map.find("r"), second);
  map.erase("r", second.get());
  EXPECT_EQ(map.find("r"), nullptr);
  map.erase("r", second.get());  // erasing what is not there is nothing
  EXPECT_EQ(map.find("r"), nullptr);
}

TEST(ShardedMap, ReadersAndWritersAtOnceSeeAnIdAbsentOrAsPut) {
  // Writers put and erase their own ids while readers look up every id: a reader finds either
  // nothing or the value put under that id, never another's. (The lobby's use of it runs
  // under ThreadSanitizer in the in-process server's tests, two I/O threads finding rooms.)
  constexpr int kWriters = 4;
  constexpr int kIdsPerWriter = 64;
  constexpr int kRounds = 200;
  ShardedMap<std::string> map;
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::atomic<long> found{0};
  const auto id_of = [](int writer, int i) {
    return "w" + std::to_string(writer) + "-" + std::to_string(i);
  };
  std::vector<std::thread> threads;
  threads.reserve(2);
  for (int reader = 0; reader < 2; ++reader) {
    threads.emplace_back([&] {
      while (!done.load()) {
        for (int w = 0; w < kWriters; ++w) {
          for (int i = 0; i < kIdsPerWriter; ++i) {
            const std::string id = id_of(w, i);
            if (const auto value = map.find(id)) {
              found.fetch_add(1);
              if (*value != id) wrong.fetch_add(1);
            }
          }
        }
      }
    });
  }
  std::vector<std::thread> writers;
  writers.reserve(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int round = 0; round < kRounds; ++round) {
        std::vector<std::shared_ptr<std::string>> put;
        put.reserve(kIdsPerWriter);
        for (int i = 0; i < kIdsPerWriter; ++i) {
          put.push_back(std::make_shared<std::string>(id_of(w, i)));
          map.put(id_of(w, i), put.back());
        }
        for (int i = 0; i < kIdsPerWriter; ++i) map.erase(id_of(w, i), put[i].get());
      }
    });
  }
  for (auto& writer : writers) writer.join();
  done = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kIdsPerWriter; ++i) EXPECT_EQ(map.find(id_of(w, i)), nullptr);
  }
  // Not a timing check, only that the readers ran while ids were present at all.
  RecordProperty("found", std::to_string(found.load()));
}

}  // namespace
}  // namespace parlor::server
