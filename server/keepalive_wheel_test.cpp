#include "server/keepalive_wheel.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <vector>

namespace parlor::server {
namespace {

using std::chrono::milliseconds;
using Clock = KeepaliveWheel::Clock;

class Probe final : public Connection {
 public:
  Probe(std::vector<int>& log, int name) : log_(log), name_(name) {}
  void send(Frame) override {}
  void close(std::uint16_t, std::string) override {}
  void keepalive_due() override {
    log_.push_back(name_);
    at_ = Clock::now();
  }
  Clock::time_point at_{};

 private:
  std::vector<int>& log_;
  int name_;
};

// A wheel over an io_context, with a registry of live connections standing in for the
// server's. Running it returns once nothing is pending, so the time limits are generous.
class KeepaliveWheelTest : public ::testing::Test {
 protected:
  std::shared_ptr<Probe> probe(int name, bool live = true) {
    auto made = std::make_shared<Probe>(log_, name);
    if (live) live_[made.get()] = made;
    return made;
  }

  boost::asio::io_context io_;
  std::map<const Connection*, std::weak_ptr<Connection>> live_;
  KeepaliveWheel wheel_{io_, [this](const Connection* address) -> std::shared_ptr<Connection> {
                          const auto it = live_.find(address);
                          return it == live_.end() ? nullptr : it->second.lock();
                        }};
  std::vector<int> log_;
};

// Checks come in the order of their times, none before its time, each once.
TEST_F(KeepaliveWheelTest, ChecksEachConnectionAtItsTime) {
  std::vector<std::shared_ptr<Probe>> probes;
  const auto start = Clock::now();
  const int delays_ms[] = {60, 20, 40, 20};
  for (int i = 0; i < 4; ++i) {
    probes.push_back(probe(i));
    wheel_.schedule(*probes.back(), start + milliseconds(delays_ms[i]));
  }
  EXPECT_EQ(wheel_.pending(), 4u);
  io_.run_for(std::chrono::seconds(10));
  ASSERT_EQ(log_.size(), 4u);
  EXPECT_EQ(log_[3], 0) << "the latest last";
  EXPECT_EQ(log_[2], 2);
  for (int i = 0; i < 4; ++i) EXPECT_GE(probes[i]->at_ - start, milliseconds(delays_ms[i]));
  EXPECT_EQ(wheel_.pending(), 0u);
}

// An earlier time scheduled while the timer waits for a later one is not held up by it.
TEST_F(KeepaliveWheelTest, AnEarlierCheckIsNotDelayedByALaterOne) {
  auto late = probe(1);
  auto early = probe(2);
  wheel_.schedule(*late, Clock::now() + std::chrono::seconds(60));
  wheel_.schedule(*early, Clock::now() + milliseconds(20));
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  while (log_.empty() && Clock::now() < give_up) io_.run_one_for(milliseconds(100));
  EXPECT_EQ(log_, std::vector<int>{2});
  EXPECT_EQ(wheel_.pending(), 1u);
}

// A connection closed meanwhile is not called, nor a new one that took its address.
TEST_F(KeepaliveWheelTest, ClosedConnectionsAreNotChecked) {
  auto gone = probe(1, false);
  auto replaced = probe(2, false);
  auto stays = probe(3);
  const auto now = Clock::now();
  wheel_.schedule(*gone, now + milliseconds(10));
  wheel_.schedule(*replaced, now + milliseconds(10));
  wheel_.schedule(*stays, now + milliseconds(10));
  // `replaced`'s address now names another connection (as a reused allocation would).
  auto newcomer = probe(4, false);
  live_[replaced.get()] = newcomer;
  io_.run_for(std::chrono::seconds(10));
  EXPECT_EQ(log_, std::vector<int>{3});
}

TEST_F(KeepaliveWheelTest, StoppedItChecksNothing) {
  auto checked = probe(1);
  wheel_.schedule(*checked, Clock::now() + milliseconds(10));
  wheel_.stop();
  wheel_.schedule(*checked, Clock::now() + milliseconds(10));
  io_.run_for(std::chrono::seconds(10));
  EXPECT_TRUE(log_.empty());
  EXPECT_TRUE(io_.stopped()) << "no wait is left pending";
}

}  // namespace
}  // namespace parlor::server
