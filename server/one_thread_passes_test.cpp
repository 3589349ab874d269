// The only I/O thread's passes: a pass runs everything that is ready, then commits; a pass
// that runs too long is cut and commits; stop() ends the loop, even while a pass is cut.
#include "server/one_thread_passes.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace parlor::server {
namespace {

using namespace std::chrono_literals;
namespace net = boost::asio;

// A handler that keeps a pass busy: it spins for `each`, then posts itself again, `left` more
// times, so that something is always ready.
void keep_busy(net::io_context& io, std::chrono::steady_clock::duration each,
               std::shared_ptr<std::atomic<int>> left) {
  const auto until = std::chrono::steady_clock::now() + each;
  while (std::chrono::steady_clock::now() < until) {
  }
  if (left->fetch_sub(1) > 1) net::post(io, [&io, each, left] { keep_busy(io, each, left); });
}

// Runs `passes` on its own thread; `join` stops it and waits for run() to return.
class Running {
 public:
  explicit Running(OneThreadPasses& passes) : passes_(passes) {
    thread_ = std::thread([this] {
      passes_.run();
      returned_.set_value();
    });
  }
  ~Running() { join(); }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;

  // Whether run() returned within `limit` of stop().
  bool join(std::chrono::seconds limit = 5s) {
    if (!thread_.joinable()) return true;
    passes_.stop();
    const bool returned = returned_.get_future().wait_for(limit) == std::future_status::ready;
    if (returned)
      thread_.join();
    else
      thread_.detach();  // the test fails; the process ends with it
    return returned;
  }

 private:
  OneThreadPasses& passes_;
  std::promise<void> returned_;
  std::thread thread_;
};

TEST(OneThreadPasses, APassRunsWhatIsReadyThenCommits) {
  net::io_context io(1);
  auto guard = net::make_work_guard(io);
  int ran = 0;
  std::vector<int> ran_at_commit;  // touched by the loop's thread only, read after join
  OneThreadPasses passes(
      io, [&] { ran_at_commit.push_back(ran); }, 10ms);
  for (int i = 0; i < 100; ++i) net::post(io, [&] { ++ran; });
  // And handlers posted by the pass's handlers are the pass's too.
  net::post(io, [&] { net::post(io, [&] { ran += 1000; }); });
  Running running(passes);
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(running.join());
  ASSERT_FALSE(ran_at_commit.empty());
  EXPECT_EQ(ran_at_commit.front(), 1100) << "every ready handler, then one commit";
}

TEST(OneThreadPasses, APassThatRunsTooLongIsCutAndCommits) {
  net::io_context io(1);
  auto guard = net::make_work_guard(io);
  std::atomic<int> commits = 0;
  auto left = std::make_shared<std::atomic<int>>(80);  // 80 handlers of 1 ms: 80 ms busy
  OneThreadPasses passes(
      io, [&] { commits.fetch_add(1); }, 10ms);
  net::post(io, [&io, left] { keep_busy(io, 1ms, left); });
  Running running(passes);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (left->load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(running.join());
  EXPECT_EQ(left->load(), 0);
  // One pass would have run all 80 ms and committed once; cut every 10 ms it commits about
  // eight times (fewer on a loaded machine, where the handlers take longer).
  EXPECT_GE(commits.load(), 4) << "a pass that never runs dry commits every 10 ms";
}

TEST(OneThreadPasses, StopEndsTheLoopWhilePassesAreCut) {
  // stop() from another thread at every moment of the cut's restart: run() always returns.
  for (int round = 0; round < 20; ++round) {
    net::io_context io(1);
    auto guard = net::make_work_guard(io);
    auto left = std::make_shared<std::atomic<int>>(1'000'000);  // busy until stopped
    OneThreadPasses passes(
        io, [] {}, 1ms);
    net::post(io, [&io, left] { keep_busy(io, 50us, left); });
    Running running(passes);
    std::this_thread::sleep_for(std::chrono::microseconds(2000 + 397 * round));
    ASSERT_TRUE(running.join()) << "round " << round;
  }
}

}  // namespace
}  // namespace parlor::server
