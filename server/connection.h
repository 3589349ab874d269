// What rooms and the lobby know of a client connection: a place to queue frames.
// Implemented by the WebSocket session (plain or TLS); rooms never see a socket.
#pragma once

#include <cstdint>
#include <string>

#include "server/frame.h"

namespace parlor::server {

class Connection {
 public:
  virtual ~Connection() = default;
  // Queues a frame for sending. Never blocks; thread-safe. A connection whose queue passes its
  // bound is closed as a slow consumer and later frames are dropped.
  virtual void send(Frame frame) = 0;
  // Closes with a WebSocket close code and reason; thread-safe, idempotent.
  virtual void close(std::uint16_t code, std::string reason) = 0;
};

}  // namespace parlor::server
