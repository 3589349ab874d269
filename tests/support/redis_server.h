// A real redis-server (Debian's) for a test: on 127.0.0.1 at a free port, persisting
// nothing, its files in a temporary directory, stopped by PID. It can be killed and started
// again on the same port, empty, as a Redis that restarts loses its data.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace parlor::testing {

class RedisServer {
 public:
  // Starts it and waits until it answers (throws std::runtime_error with its log if not).
  RedisServer();
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // False when redis-server is not installed (deploy/install-deps.sh installs it).
  static bool available();

  int port() const { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  // SIGKILL, as a crash would.
  void kill();
  // Starts again on the same port, with nothing from before.
  void start();

 private:
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace parlor::testing
