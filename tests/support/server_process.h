// The real parlor-server binary as a child process for tests that kill, pause or restart it:
// spawned with the test's flags and `--port 0`, its port read from its `listening on
// HOST:PORT` line, its stderr in a log file, stopped by PID.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace parlor::testing {

// The last `lines` lines of a file, indented, for failure messages.
std::string tail_of(const std::filesystem::path& file, std::size_t lines);

class ServerProcess {
 public:
  // `flags`: everything but the binary and --port. Logs go to `log_dir`/`name`-N.log, N
  // counting the starts.
  ServerProcess(std::filesystem::path binary, std::vector<std::string> flags,
                std::filesystem::path log_dir, std::string name = "server");
  // kill_now().
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Spawns the server (on `port`; 0: a free one) and waits up to 15 s for `listening on`.
  // Returns "" on success, else the cause with the log's tail.
  std::string start(unsigned short port = 0);
  // SIGKILL and reap. Returns "" when the server was alive until the kill, else how it ended.
  std::string kill_now();
  // Waits up to `timeout` for the server to exit by itself (after a SIGTERM: its drain and
  // shutdown) and reaps it. Returns how it ended ("exit status 0", "killed by signal 6"), or
  // "still running" when it has not (it is left running).
  std::string wait_exit(std::chrono::milliseconds timeout);
  // SIGSTOP / SIGCONT: a node that freezes (a long GC pause, a stalled VM) and comes back.
  void pause();
  void resume();
  bool running() const { return pid_ > 0; }

  unsigned short port() const { return port_; }
  pid_t pid() const { return pid_; }
  int starts() const { return starts_; }
  const std::filesystem::path& log() const { return log_; }

 private:
  std::string reap();
  // What the wait status of the exited server says, and forgets the process.
  std::string reaped(int status);

  std::filesystem::path binary_;
  std::vector<std::string> flags_;
  std::filesystem::path log_dir_;
  std::string name_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  unsigned short port_ = 0;
  int starts_ = 0;
};

}  // namespace parlor::testing
