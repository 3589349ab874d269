#include "tests/support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "tests/support/spawn_logged.h"

namespace parlor::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string tail_of(const fs::path& file, std::size_t lines) {
  std::ifstream in(file);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    " + all[i] + "\n";
  }
  return out;
}

ServerProcess::ServerProcess(fs::path binary, std::vector<std::string> flags, fs::path log_dir,
                             std::string name)
    : binary_(std::move(binary)),
      flags_(std::move(flags)),
      log_dir_(std::move(log_dir)),
      name_(std::move(name)) {}

ServerProcess::~ServerProcess() { kill_now(); }

std::string ServerProcess::start(unsigned short port) {
  ++starts_;
  fs::create_directories(log_dir_);
  log_ = log_dir_ / (name_ + "-" + std::to_string(starts_) + ".log");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::string("pipe2: ") + std::strerror(errno);
  std::vector<std::string> args = {binary_.string(), "--port", std::to_string(port)};
  args.insert(args.end(), flags_.begin(), flags_.end());
  std::string error;
  pid_ = spawn_logged(args, log_, error, fds[1]);
  ::close(fds[1]);
  if (pid_ < 0) {
    ::close(fds[0]);
    return error;
  }
  out_fd_ = fds[0];
  std::string out;
  const auto deadline = Clock::now() + std::chrono::seconds(15);
  while (true) {
    if (auto newline = out.find('\n'); newline != std::string::npos) {
      const std::string line = out.substr(0, newline);
      out.erase(0, newline + 1);
      if (line.rfind("listening on ", 0) == 0) {
        port_ = static_cast<unsigned short>(std::stoi(line.substr(line.rfind(':') + 1)));
        return {};
      }
      continue;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return "no \"listening on\" within 15 s; log:\n" + tail_of(log_, 20);
    pollfd p{out_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(out_fd_, buffer, sizeof buffer);
    if (n <= 0) {
      const std::string status = reap();
      return "the server exited at start (" + status + "); log:\n" + tail_of(log_, 20);
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string ServerProcess::kill_now() {
  if (pid_ <= 0) return {};
  ::kill(pid_, SIGKILL);
  const std::string status = reap();
  return status == "killed by signal 9" ? std::string() : status;
}

void ServerProcess::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void ServerProcess::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

std::string ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return "not running";
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) return reaped(status);
    if (done < 0 && errno != EINTR) return std::string("waitpid: ") + std::strerror(errno);
    if (Clock::now() >= deadline) return "still running";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string ServerProcess::reap() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  return reaped(status);
}

std::string ServerProcess::reaped(int status) {
  pid_ = -1;
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace parlor::testing
