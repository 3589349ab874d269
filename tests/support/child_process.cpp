#include "tests/support/child_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "tests/support/spawn_logged.h"

namespace parlor::testing {

namespace {

using Clock = std::chrono::steady_clock;

sockaddr_in loopback(unsigned short port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

std::string status_text(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

unsigned short free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr = loopback(0);
  socklen_t size = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) == 0;
  const int error = errno;
  ::close(fd);
  if (!ok) throw std::runtime_error(std::string("no free port: ") + std::strerror(error));
  return ntohs(addr.sin_port);
}

bool wait_for_listener(unsigned short port, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr = loopback(port);
    const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (connected) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ChildProcess::ChildProcess(std::vector<std::string> argv, std::filesystem::path log)
    : argv_(std::move(argv)), log_(std::move(log)) {}

ChildProcess::~ChildProcess() { stop(); }

std::string ChildProcess::start() {
  if (pid_ > 0) return "already running";
  std::string error;
  pid_ = spawn_logged(argv_, log_, error);
  if (pid_ < 0) return error;
  ended_.clear();
  return {};
}

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == 0) return true;
  ended_ = done == pid_ ? status_text(status) : "lost";
  pid_ = -1;
  return false;
}

std::string ChildProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return {};
  ::kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + grace;
  while (running()) {
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      ended_ = status_text(status);
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ended_;
}

}  // namespace parlor::testing
