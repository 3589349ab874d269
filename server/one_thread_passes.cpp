#include "server/one_thread_passes.h"

#include <boost/asio/post.hpp>

#include <utility>

namespace parlor::server {

OneThreadPasses::OneThreadPasses(boost::asio::io_context& io, std::function<void()> commit,
                                 std::chrono::steady_clock::duration longest)
    : io_(io), commit_(std::move(commit)), longest_(longest), watchdog_(io) {}

void OneThreadPasses::run() {
  while (io_.run_one() > 0) {
    in_pass_ = true;
    pass_started_ = std::chrono::steady_clock::now();
    if (!watched_) watch();
    io_.poll();
    in_pass_ = false;
    if (cut_) {
      cut_ = false;
      io_.restart();
      // stop() may have stopped the io_context between the watchdog's stop and the restart.
      if (stopping_.load()) break;
    }
    boost::asio::post(io_, [this] { commit_(); });
    io_.poll_one();
  }
}

void OneThreadPasses::stop() {
  stopping_.store(true);
  io_.stop();
}

// Arms the watchdog for the pass under way. It fires at most once per `longest_`, and is not
// armed again while the thread waits between passes: an idle server keeps no timer going.
void OneThreadPasses::watch() {
  watched_ = true;
  watchdog_.expires_at(pass_started_ + longest_);
  watchdog_.async_wait([this](boost::system::error_code ec) {
    watched_ = false;
    if (ec || !in_pass_) return;
    if (std::chrono::steady_clock::now() - pass_started_ >= longest_) {
      cut_ = true;
      io_.stop();  // poll() returns after this handler
      return;
    }
    watch();  // a later pass than the one it was armed for: watch this one
  });
}

}  // namespace parlor::server
