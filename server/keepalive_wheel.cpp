#include "server/keepalive_wheel.h"

#include <algorithm>
#include <utility>

namespace parlor::server {

namespace {

// std::push_heap and pop_heap build a max-heap: "later" as "less" puts the earliest on top.
bool later(const auto& a, const auto& b) { return a.at > b.at; }

}  // namespace

KeepaliveWheel::KeepaliveWheel(boost::asio::io_context& io, Resolve resolve)
    : resolve_(std::move(resolve)), timer_(io) {}

void KeepaliveWheel::schedule(const Connection& connection, Clock::time_point at) {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  heap_.push_back({at, &connection, connection.id()});
  std::push_heap(heap_.begin(), heap_.end(), later<Entry, Entry>);
  arm(at);
}

void KeepaliveWheel::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  heap_.clear();
  heap_.shrink_to_fit();
  armed_for_.reset();
  timer_.cancel();
}

std::size_t KeepaliveWheel::pending() const {
  std::lock_guard lock(mutex_);
  return heap_.size();
}

void KeepaliveWheel::arm(Clock::time_point at) {
  if (armed_for_ && *armed_for_ <= at) return;
  armed_for_ = at;
  // Setting the expiry cancels the wait for a later time (its handler sees the abort).
  timer_.expires_at(at);
  timer_.async_wait([this](boost::system::error_code ec) {
    // Aborted: re-armed for an earlier time, or stopped (the wheel may be gone then).
    if (!ec) on_timer();
  });
}

void KeepaliveWheel::on_timer() {
  std::vector<Entry> due;
  {
    std::lock_guard lock(mutex_);
    armed_for_.reset();
    const auto now = Clock::now();
    while (!heap_.empty() && heap_.front().at <= now) {
      std::pop_heap(heap_.begin(), heap_.end(), later<Entry, Entry>);
      due.push_back(heap_.back());
      heap_.pop_back();
    }
    if (!heap_.empty()) arm(heap_.front().at);
  }
  for (const Entry& entry : due) {
    auto connection = resolve_(entry.address);
    if (connection && connection->id() == entry.id) connection->keepalive_due();
  }
}

}  // namespace parlor::server
