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

struct Registry {
  std::map<const Connection*, std::weak_ptr<Connection>> live;
  KeepaliveWheel::Resolve resolve() {
    return [this](const Connection* address) -> std::shared_ptr<Connection> {
      const auto it = live.find(address);
      return it == live.end() ? nullptr : it->second.lock();
    };
  }
};

// Checks come in the order of their times, none before its time, each once.
TEST(KeepaliveWheel, ChecksEachConnectionAtItsTime) {
  boost::asio::io_context io;
  Registry registry;
  KeepaliveWheel wheel(io, registry.resolve());
  std::vector<int> log;
  std::vector<std::shared_ptr<Probe>> probes;
  const auto start = Clock::now();
  const int delays_ms[] = {60, 20, 40, 20};
  for (int i = 0; i < 4; ++i) {
    probes.push_back(std::make_shared<Probe>(log, i));
    registry.live[probes.back().get()] = probes.back();
    wheel.schedule(*probes.back(), start + milliseconds(delays_ms[i]));
  }
  EXPECT_EQ(wheel.pending(), 4u);
  io.run_for(milliseconds(500));
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[3], 0) << "the latest last";
  EXPECT_EQ(log[2], 2);
  for (int i = 0; i < 4; ++i) EXPECT_GE(probes[i]->at_ - start, milliseconds(delays_ms[i]));
  EXPECT_EQ(wheel.pending(), 0u);
}

// An earlier time scheduled while the timer waits for a later one is not held up by it.
TEST(KeepaliveWheel, AnEarlierCheckIsNotDelayedByALaterOne) {
  boost::asio::io_context io;
  Registry registry;
  KeepaliveWheel wheel(io, registry.resolve());
  std::vector<int> log;
  auto late = std::make_shared<Probe>(log, 1);
  auto early = std::make_shared<Probe>(log, 2);
  registry.live[late.get()] = late;
  registry.live[early.get()] = early;
  const auto start = Clock::now();
  wheel.schedule(*late, start + milliseconds(400));
  wheel.schedule(*early, start + milliseconds(20));
  io.run_for(milliseconds(200));
  EXPECT_EQ(log, std::vector<int>{2});
  EXPECT_LT(early->at_ - start, milliseconds(200));
}

// A connection closed meanwhile is not called, nor a new one that took its address.
TEST(KeepaliveWheel, ClosedConnectionsAreNotChecked) {
  boost::asio::io_context io;
  Registry registry;
  KeepaliveWheel wheel(io, registry.resolve());
  std::vector<int> log;
  auto gone = std::make_shared<Probe>(log, 1);
  auto replaced = std::make_shared<Probe>(log, 2);
  auto stays = std::make_shared<Probe>(log, 3);
  const auto now = Clock::now();
  wheel.schedule(*gone, now + milliseconds(10));
  wheel.schedule(*replaced, now + milliseconds(10));
  wheel.schedule(*stays, now + milliseconds(10));
  registry.live[stays.get()] = stays;
  // `replaced`'s address now names another connection (as a reused allocation would).
  auto newcomer = std::make_shared<Probe>(log, 4);
  registry.live[replaced.get()] = newcomer;
  io.run_for(milliseconds(200));
  EXPECT_EQ(log, std::vector<int>{3});
}

TEST(KeepaliveWheel, StoppedItChecksNothing) {
  boost::asio::io_context io;
  Registry registry;
  KeepaliveWheel wheel(io, registry.resolve());
  std::vector<int> log;
  auto probe = std::make_shared<Probe>(log, 1);
  registry.live[probe.get()] = probe;
  wheel.schedule(*probe, Clock::now() + milliseconds(10));
  wheel.stop();
  wheel.schedule(*probe, Clock::now() + milliseconds(10));
  io.run_for(milliseconds(100));
  EXPECT_TRUE(log.empty());
  EXPECT_TRUE(io.stopped()) << "no wait is left pending";
}

}  // namespace
}  // namespace parlor::server
