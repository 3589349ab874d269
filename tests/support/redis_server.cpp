#include "tests/support/redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace parlor::testing {
namespace {

constexpr const char* kBinary = "/usr/bin/redis-server";

// A loopback port nobody listens on now (the kernel's choice for an ephemeral bind).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t length = sizeof(addr);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(std::string("no free port: ") + std::strerror(errno));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Whether something answers a Redis PING on the port.
bool answers_ping(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  timeval timeout{0, 200'000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const char ping[] = "PING\r\n";
    char answer[16] = {};
    ok = ::write(fd, ping, sizeof(ping) - 1) == sizeof(ping) - 1 &&
         ::read(fd, answer, sizeof(answer)) > 0 && std::strncmp(answer, "+PONG", 5) == 0;
  }
  ::close(fd);
  return ok;
}

}  // namespace

bool RedisServer::available() { return ::access(kBinary, X_OK) == 0; }

RedisServer::RedisServer() {
  std::random_device random;
  dir_ = std::filesystem::temp_directory_path() /
         ("parlor-redis-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
  std::filesystem::create_directories(dir_);
  port_ = free_port();
  start();
}

RedisServer::~RedisServer() {
  kill();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void RedisServer::start() {
  const std::string port = std::to_string(port_);
  const std::string log = (dir_ / "redis.log").string();
  std::vector<std::string> args = {kBinary,
                                   "--port",
                                   port,
                                   "--bind",
                                   "127.0.0.1",
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--dir",
                                   dir_.string(),
                                   "--logfile",
                                   log,
                                   "--daemonize",
                                   "no",
                                   "--protected-mode",
                                   "no"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const int spawned = ::posix_spawn(&pid_, kBinary, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    pid_ = -1;
    throw std::runtime_error(std::string("posix_spawn redis-server: ") + std::strerror(spawned));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (answers_ping(port_)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::ifstream file(log);
  std::stringstream text;
  text << file.rdbuf();
  kill();
  throw std::runtime_error("redis-server on port " + port + " did not start:\n" + text.str());
}

void RedisServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace parlor::testing
