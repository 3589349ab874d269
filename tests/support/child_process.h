// Any program as a child process for a test (nginx, HAProxy): its stdout and stderr in a log
// file, stopped by its PID; and loopback ports for it to listen on.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace parlor::testing {

// A loopback port nobody listens on now (the kernel's choice for an ephemeral bind).
unsigned short free_loopback_port();

// Whether something accepts TCP connections on 127.0.0.1:port within `timeout`.
bool wait_for_listener(unsigned short port, std::chrono::milliseconds timeout);

class ChildProcess {
 public:
  // `argv[0]` is the program's path. Its output goes to `log`.
  ChildProcess(std::vector<std::string> argv, std::filesystem::path log);
  // stop().
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Spawns it. Returns "" on success, else why not.
  std::string start();
  // Whether it is still running (a child that exited is reaped here).
  bool running();
  // SIGTERM, up to `grace` to exit, then SIGKILL. Returns how it ended ("exit status 0",
  // "killed by signal 9"), or "" when it was not running.
  std::string stop(std::chrono::milliseconds grace = std::chrono::seconds(3));

  pid_t pid() const { return pid_; }
  const std::filesystem::path& log() const { return log_; }
  // How it ended, once it has ("" while it runs).
  const std::string& ended() const { return ended_; }

 private:
  std::vector<std::string> argv_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  std::string ended_;
};

}  // namespace parlor::testing
