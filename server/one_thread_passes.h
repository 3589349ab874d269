// The event loop of a server's only I/O thread when its store commits at the end of each
// pass (docs/ARCHITECTURE.md, "Persistence"): wait for a handler, run every handler that is
// ready, then commit what they queued and acknowledge it, and again.
//
// - The pass's handlers run in one io_context::poll(), not a poll_one() each: every
//   poll_one() builds the scheduler's per-thread context (and its cache of handler memory)
//   around its one handler, which cost about 800 instructions a durable move at 100 rooms
//   flat out (docs/BENCHMARKS.md, "One poll for the pass").
// - poll() runs until nothing is ready, so time bounds a pass: a watchdog timer stops the
//   io_context once a pass has run `longest`, the pass commits, and what was still ready runs
//   in the next one. Without it a stream of ready handlers (a burst of connections, a flood
//   of requests) would hold every move's acknowledgement back.
// - The commit runs as a handler, the next after the pass: Asio then queues what the
//   acknowledgements post (a frame to each player's session) on the thread's own queue,
//   without the scheduler's lock and a wake-up each, and takes their memory from the
//   thread's cache (docs/BENCHMARKS.md, "The commit as a handler"). The one poll_one() may
//   first look at the sockets; what they bring waits for the next pass.
//
// Several I/O threads keep a poll_one() loop bounded by a count of handlers (server.cpp):
// there a stopped io_context would stop every thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <functional>

namespace parlor::server {

class OneThreadPasses {
 public:
  // `commit` commits what the pass queued (Store::commit_pending). `io` must have work (a
  // guard) for run() to wait between passes.
  OneThreadPasses(boost::asio::io_context& io, std::function<void()> commit,
                  std::chrono::steady_clock::duration longest);

  // Runs passes on the calling thread, the io_context's only one, until stop().
  void run();
  // From any thread: run() returns soon after, even if a pass is being cut meanwhile (a cut
  // pass restarts the io_context, which must not undo this).
  void stop();

 private:
  void watch();

  boost::asio::io_context& io_;
  std::function<void()> commit_;
  std::chrono::steady_clock::duration longest_;
  boost::asio::steady_timer watchdog_;
  // The rest is touched by the running thread only, but stopping_.
  bool watched_ = false;
  bool in_pass_ = false;
  bool cut_ = false;
  std::chrono::steady_clock::time_point pass_started_;
  std::atomic<bool> stopping_{false};
};

}  // namespace parlor::server
