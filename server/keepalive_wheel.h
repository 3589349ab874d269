// One timer for every connection's keep-alive check, in place of a timer in each connection.
//
// Why: a connection's own steady_timer, and the wait it keeps pending between checks, cost it
// about 250 bytes while idle, a twentieth of what an idle player may cost the server
// (docs/BENCHMARKS.md, "Memory per idle connection"). Here a connection is one entry of a
// heap ordered by when it is next due (24 bytes), and one timer waits for the earliest.
// Times are kept exactly: a connection is checked at the time it asked for, never earlier,
// as with a timer of its own.
//
// The wheel holds no reference to a connection: an entry names it by address and id, and is
// resolved through the server's registry of live connections when due, so a closed
// connection is neither kept alive nor called, and a new one at the same address is told
// apart by its id. Thread-safe; the check runs on the thread the timer fires on (the
// connection hands it to its own strand).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "server/connection.h"

namespace parlor::server {

class KeepaliveWheel {
 public:
  using Clock = std::chrono::steady_clock;
  // The live connection at `address`, or null.
  using Resolve = std::function<std::shared_ptr<Connection>(const Connection* address)>;

  KeepaliveWheel(boost::asio::io_context& io, Resolve resolve);

  // Calls connection.keepalive_due() at `at` (or as soon after as the timer fires).
  void schedule(const Connection& connection, Clock::time_point at);
  // No more checks; the pending wait ends.
  void stop();

  std::size_t pending() const;

 private:
  struct Entry {
    Clock::time_point at;
    const Connection* address;
    std::uint64_t id;
  };
  // Arms the timer for `at` unless it already waits for something earlier. mutex_ held.
  void arm(Clock::time_point at);
  void on_timer();

  Resolve resolve_;
  mutable std::mutex mutex_;
  std::vector<Entry> heap_;  // a min-heap by `at`
  boost::asio::steady_timer timer_;
  std::optional<Clock::time_point> armed_for_;
  bool stopped_ = false;
};

}  // namespace parlor::server
