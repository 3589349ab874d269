#include "server/fifo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace parlor::server {
namespace {

std::vector<int> contents(const Fifo<int>& fifo) { return {fifo.begin(), fifo.end()}; }

TEST(Fifo, KeepsTheOrderOfPushes) {
  Fifo<int> fifo;
  EXPECT_TRUE(fifo.empty());
  for (int i = 0; i < 5; ++i) fifo.push_back(i);
  fifo.pop_front();
  fifo.pop_front();
  fifo.push_back(5);
  EXPECT_EQ(contents(fifo), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(fifo.front(), 2);
  EXPECT_EQ(fifo[3], 5);
  EXPECT_EQ(fifo.size(), 4u);
  EXPECT_EQ(std::vector<int>(fifo.items().begin(), fifo.items().end()), contents(fifo));
}

// Pushing and popping in turns, as a connection's outbound queue does, neither grows nor
// loses anything, over many more items than its capacity.
TEST(Fifo, PushedAndDrainedInTurnsStaysSmall) {
  Fifo<int> fifo;
  int next_out = 0;
  for (int i = 0; i < 10'000; ++i) {
    fifo.push_back(i);
    if (i % 3 == 2) {
      while (!fifo.empty()) {
        EXPECT_EQ(fifo.front(), next_out++);
        fifo.pop_front();
      }
    }
  }
  while (!fifo.empty()) {
    EXPECT_EQ(fifo.front(), next_out++);
    fifo.pop_front();
  }
  EXPECT_EQ(next_out, 10'000);
}

// A bounded history (push one, drop the oldest) slides rather than growing without end.
TEST(Fifo, ABoundedHistoryKeepsTheNewest) {
  Fifo<int> fifo;
  for (int i = 0; i < 1'000; ++i) {
    fifo.push_back(i);
    if (fifo.size() > 10) fifo.pop_front();
  }
  std::vector<int> newest;
  for (int i = 990; i < 1'000; ++i) newest.push_back(i);
  EXPECT_EQ(contents(fifo), newest);
}

// What a popped slot held is released at once, not when the slot is reused.
TEST(Fifo, APopReleasesTheItem) {
  Fifo<std::shared_ptr<std::string>> fifo;
  auto item = std::make_shared<std::string>("frame");
  fifo.push_back(item);
  fifo.push_back(std::make_shared<std::string>("next"));
  EXPECT_EQ(item.use_count(), 2);
  fifo.pop_front();
  EXPECT_EQ(item.use_count(), 1);
}

}  // namespace
}  // namespace parlor::server
