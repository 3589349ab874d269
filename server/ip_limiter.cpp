#include "server/ip_limiter.h"

namespace parlor::server {

std::unique_ptr<IpLimiter::Slot> IpLimiter::admit(const std::string& ip, Refusal* why) {
  if (why) *why = Refusal::kNone;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  if (counts_.size() > 4096) {
    // Entries outlive their connections to keep counting the current second; purge old ones.
    std::erase_if(counts_, [&](const auto& entry) {
      return entry.second.open == 0 && now - entry.second.second_start >= std::chrono::seconds(1);
    });
  }
  Counts& counts = counts_[ip];
  if (now - counts.second_start >= std::chrono::seconds(1)) {
    counts.second_start = now;
    counts.this_second = 0;
  }
  if (counts.open >= max_connections_) {
    if (why) *why = Refusal::kConnections;
    return nullptr;
  }
  if (counts.this_second >= max_per_second_) {
    if (why) *why = Refusal::kHandshakeRate;
    return nullptr;
  }
  ++counts.open;
  ++counts.this_second;
  return std::make_unique<Slot>(shared_from_this(), ip);
}

IpLimiter::RefusalText IpLimiter::explain(Refusal why) const {
  if (why == Refusal::kConnections) {
    return {5,
            "too many connections from this address (" + std::to_string(max_connections_) +
                " open); close some or raise --max-connections-per-ip",
            "connections_per_ip"};
  }
  return {1,
          "too many new connections from this address (over " + std::to_string(max_per_second_) +
              " a second); slow down or raise --max-handshakes-per-ip",
          "handshakes_per_ip"};
}

void IpLimiter::release(const std::string& ip) {
  std::lock_guard lock(mutex_);
  auto it = counts_.find(ip);
  if (it != counts_.end()) --it->second.open;
}

}  // namespace parlor::server
