#include "server/room/bot_pool.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <cerrno>
#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace parlor::server {
namespace {

// Half the cores (at least one, at most four): thinking bots share the machine with the
// io_context threads that serve every player.
std::size_t pool_threads() {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(cores / 2, 1, 4);
}

boost::asio::thread_pool& bot_pool() {
  static boost::asio::thread_pool pool(pool_threads());
  return pool;
}

// A thinking bot runs at a lower scheduling priority than the threads serving players: where
// both want one core (a pool thread and an io_context thread on the same CPU), the scheduler
// lets the player's message through first and the bot takes the time left over, instead of
// the two sharing the core evenly and the player's reply waiting for the bot's time slice.
// Linux keeps a nice value per thread; elsewhere the pool runs at the process's priority.
constexpr int kThinkNice = 10;  // added to the thread's nice value (19 at most)

void lower_this_thread() {
#if defined(__linux__)
  thread_local bool lowered = false;
  if (lowered) return;
  lowered = true;
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, std::min(19, now + kThinkNice));
#endif
}

}  // namespace

void post_bot_think(std::function<void()> think) {
  boost::asio::post(bot_pool(), [think = std::move(think)] {
    lower_this_thread();
    think();
  });
}

}  // namespace parlor::server
