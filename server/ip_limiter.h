// Per-IP admission: concurrent connections and new connections per second.
// A slot is held for a connection's whole life (HTTP and WebSocket) and released by
// its destructor.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace parlor::server {

class IpLimiter : public std::enable_shared_from_this<IpLimiter> {
 public:
  IpLimiter(int max_connections, int max_per_second)
      : max_connections_(max_connections), max_per_second_(max_per_second) {}

  class Slot {
   public:
    Slot(std::shared_ptr<IpLimiter> owner, std::string ip)
        : owner_(std::move(owner)), ip_(std::move(ip)) {}
    ~Slot() { owner_->release(ip_); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    std::shared_ptr<IpLimiter> owner_;
    std::string ip_;
  };

  // Which limit refused a connection.
  enum class Refusal { kNone, kConnections, kHandshakeRate };

  // A slot for a new connection from `ip`, or null when a limit is reached; then `why`
  // (when given) says which.
  std::unique_ptr<Slot> admit(const std::string& ip, Refusal* why = nullptr);

  // What a client refused for `why` is told: when to try again, the one-line reason (for it
  // and the log) and the reason label of parlor_connections_refused_by_reason_total.
  struct RefusalText {
    int retry_after_s;
    std::string reason;
    const char* metric;
  };
  RefusalText explain(Refusal why) const;

  int max_connections() const { return max_connections_; }
  int max_per_second() const { return max_per_second_; }

 private:
  struct Counts {
    int open = 0;
    int this_second = 0;
    std::chrono::steady_clock::time_point second_start{};
  };
  void release(const std::string& ip);

  const int max_connections_;
  const int max_per_second_;
  std::mutex mutex_;
  std::unordered_map<std::string, Counts> counts_;
};

// Who a connection comes from, as the listener found it at accept.
struct ConnectionOrigin {
  std::string address;  // the TCP peer's address, canonical (server/trusted_proxy.h)
  // Set when the peer is a trusted proxy (--trusted-proxy): the connection took no slot at
  // accept, and each request on it is admitted here for the client its X-Forwarded-For
  // names (the proxy's own address is not one client; see Listener::on_accept).
  std::shared_ptr<IpLimiter> per_request_limiter;
};

}  // namespace parlor::server
