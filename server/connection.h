// What rooms and the lobby know of a client connection: a place to queue frames.
// Implemented by the WebSocket session (plain or TLS); rooms never see a socket.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "server/frame.h"

namespace parlor::server {

class Connection {
 public:
  Connection() : id_(next_id()) {}
  virtual ~Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Unique in this process and never reused: how another node names this connection when
  // it sends it frames (cluster mode), so a late frame can never reach a newer connection.
  std::uint64_t id() const { return id_; }

  // Queues a frame for sending. Never blocks; thread-safe. A connection whose queue passes its
  // bound is closed as a slow consumer and later frames are dropped.
  virtual void send(Frame frame) = 0;
  // Closes with a WebSocket close code and reason; thread-safe, idempotent.
  virtual void close(std::uint16_t code, std::string reason) = 0;
  // The keep-alive check this connection asked the server's wheel for (keepalive_wheel.h) is
  // due. Called on the wheel's thread; a connection with a socket hands it to its own strand.
  virtual void keepalive_due() {}

 private:
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  const std::uint64_t id_;
};

}  // namespace parlor::server
