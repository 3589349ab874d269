#include "server/room/bot_pool.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <thread>

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

}  // namespace

void post_bot_think(std::function<void()> think) {
  boost::asio::post(bot_pool(), std::move(think));
}

}  // namespace parlor::server
