// Floods and exhaustion against the real parlor-server process on 127.0.0.1: the server runs
// out of file descriptors while a game is played; a thousand slowloris handshakes; a thousand
// clients that watch a busy room and never read; a burst of ten thousand connections. Each
// case is bounded in time and prints its figures; docs/OPERATIONS.md ("Floods and
// exhaustion") keeps them with the command that produced them.
//
// The clients of a flood are raw non-blocking sockets driven together by one poll loop: a
// TestClient each would cost an io_context (three descriptors) besides its socket. Each flood
// client comes from a loopback address of its own (127.B.X.Y; Linux routes all of 127/8 to
// the loopback interface), so the per-address limits (64 open, 20 new a second) do not stop
// it: the floods test the defences behind those limits, as a flood from many machines would.
// The burst is the exception: a hundred clients share each address, to meet those limits.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "games/registry.h"
#include "tests/support/game_driver.h"
#include "tests/support/raw_ws_client.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_fixture.h"
#include "tests/support/server_process.h"
#include "tests/support/test_client.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- the server seen from outside: /proc and /metrics ------------------------------------

// User and system CPU time the process has used, from /proc/PID/stat.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name may hold spaces: the fields are counted from its closing parenthesis,
  // after which comes field 3 (the state); utime and stime are fields 14 and 15.
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  if (fields.size() < 13) throw std::runtime_error("unreadable /proc/" + std::to_string(pid));
  return (std::stod(fields[11]) + std::stod(fields[12])) /
         static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Resident memory in KiB (VmRSS in /proc/PID/status).
long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  throw std::runtime_error("no VmRSS for " + std::to_string(pid));
}

// The highest resident memory of a process, sampled every 20 ms from construction to stop().
class RssSampler {
 public:
  explicit RssSampler(pid_t pid) : pid_(pid), peak_(rss_kib(pid)) {
    thread_ = std::thread([this] {
      while (!done_) {
        try {
          peak_ = std::max(peak_.load(), rss_kib(pid_));
        } catch (const std::exception&) {
          return;  // the process is gone; the test says so
        }
        std::this_thread::sleep_for(milliseconds(20));
      }
    });
  }
  ~RssSampler() { stop(); }
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;
  // Stops sampling; the peak in KiB.
  long stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
    return peak_;
  }

 private:
  const pid_t pid_;
  std::atomic<long> peak_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

int open_fds(pid_t pid) {
  const auto dir = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd");
  return static_cast<int>(std::distance(fs::begin(dir), fs::end(dir)));
}

bool alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

// A metric's value in a /metrics answer; -1 when it is absent.
double metric(const std::string& text, const std::string& name) {
  const std::string key = "\n" + name + " ";
  const auto at = text.find(key);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + key.size()));
}

int lines_with(const fs::path& log, const std::string& needle) {
  std::ifstream in(log);
  int count = 0;
  for (std::string line; std::getline(in, line);) count += line.find(needle) != std::string::npos;
  return count;
}

// Raises this process's descriptor limit to `want` (the hard limit too when it is lower and
// the process may: root); returns the soft limit it has then. A server started afterwards
// inherits it.
rlim_t raise_fd_limit(rlim_t want) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur >= want) return limit.rlim_cur;
  if (limit.rlim_max < want) {
    const rlimit raised{want, want};
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return want;
  }
  limit.rlim_cur = std::min(want, limit.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &limit);
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_cur;
}

// ---- raw connections ---------------------------------------------------------------------

// The address of client `i` of a flood: 127.`block`.X.Y, one per client.
std::string loopback_source(int block, int i) {
  return "127." + std::to_string(block) + "." + std::to_string(i / 250) + "." +
         std::to_string(i % 250 + 1);
}

// Starts a TCP connection to 127.0.0.1:port from `source` without waiting for it (the
// socket is non-blocking). `receive_buffer`: SO_RCVBUF, when not 0. Throws on failure.
int start_connection(const std::string& source, unsigned short port, int receive_buffer = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  if (receive_buffer > 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  }
  // The port is chosen at connect, for the pair of addresses, rather than at bind.
  const int one = 1;
  ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &local.sin_addr);
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  remote.sin_port = htons(port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      (::connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote) != 0 &&
       errno != EINPROGRESS)) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("connect from " + source + ": " + why);
  }
  return fd;
}

// Descriptors closed together when the test is done with them (or fails).
class Sockets {
 public:
  Sockets() = default;
  ~Sockets() { close_all(); }
  Sockets(const Sockets&) = delete;
  Sockets& operator=(const Sockets&) = delete;
  void add(int fd) { fds_.push_back(fd); }
  void close_all() {
    for (const int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
    fds_.clear();
  }
  std::vector<int>& fds() { return fds_; }

 private:
  std::vector<int> fds_;
};

const std::string kUpgradeRequest = std::string(
                                        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                                        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ") +
                                    kWebSocketKey + "\r\n\r\n";

// What became of one client of a Crowd.
struct Outcome {
  int status = 0;            // the HTTP status answering its upgrade (101: upgraded)
  bool retry_after = false;  // that answer had a Retry-After header
  bool welcomed = false;     // it said hello and was welcomed
  bool followed = false;     // its follow-up request got the expected reply
  std::string failure;       // how it ended otherwise (closed unanswered, reset, timeout)
};

// Clients that each connect from an address of their own, ask for the WebSocket upgrade, say
// hello and, when there is a follow-up request, send it and wait for its reply; all driven
// by one epoll loop. A client answered with a status other than 101 is done and its
// connection closed; one that got its replies keeps its connection open and is never read
// again (a client that stops reading).
class Crowd {
 public:
  struct Options {
    int size = 0;
    int block = 0;           // addresses 127.block.X.Y
    int per_address = 1;     // clients sharing one address
    int receive_buffer = 0;  // SO_RCVBUF of each client (0: the system's)
    Json follow_up = nullptr;
    std::string follow_up_reply;  // the type of frame that answers the follow-up
  };

  Crowd(unsigned short port, Options options) : port_(port), options_(std::move(options)) {}
  ~Crowd() { close_all(); }
  Crowd(const Crowd&) = delete;
  Crowd& operator=(const Crowd&) = delete;

  // Opens every connection and runs until each client is done or `limit` has passed.
  void run(milliseconds limit) {
    const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0) throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
    epoll_ = epoll;
    clients_.resize(static_cast<std::size_t>(options_.size));
    for (int i = 0; i < options_.size; ++i) {
      Client& client = clients_[static_cast<std::size_t>(i)];
      client.fd = start_connection(loopback_source(options_.block, i / options_.per_address), port_,
                                   options_.receive_buffer);
      epoll_event event{};
      event.events = EPOLLOUT | EPOLLIN;
      event.data.u32 = static_cast<std::uint32_t>(i);
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, client.fd, &event);
      ++pending_;
    }
    const auto deadline = Clock::now() + limit;
    std::vector<epoll_event> events(1024);
    while (pending_ > 0 && Clock::now() < deadline) {
      const int ready = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
      for (int e = 0; e < ready; ++e) {
        handle(clients_[events[static_cast<std::size_t>(e)].data.u32],
               events[static_cast<std::size_t>(e)].events);
      }
    }
    for (Client& client : clients_) {
      if (client.stage != Stage::kDone) fail(client, "no answer in time");
    }
    ::close(epoll_);
    epoll_ = -1;
  }

  std::vector<Outcome> outcomes() const {
    std::vector<Outcome> out;
    for (const Client& client : clients_) out.push_back(client.outcome);
    return out;
  }

  void close_all() {
    for (Client& client : clients_) {
      if (client.fd >= 0) ::close(client.fd);
      client.fd = -1;
    }
  }

 private:
  enum class Stage { kConnecting, kUpgrading, kHello, kFollowUp, kDone };
  static const char* name(Stage stage) {
    switch (stage) {
      case Stage::kConnecting:
        return "connecting";
      case Stage::kUpgrading:
        return "upgrading";
      case Stage::kHello:
        return "hello";
      case Stage::kFollowUp:
        return "follow-up";
      case Stage::kDone:
        break;
    }
    return "done";
  }
  struct Client {
    int fd = -1;
    Stage stage = Stage::kConnecting;
    std::string out;
    std::string in;
    Outcome outcome;
  };

  void handle(Client& client, std::uint32_t events) {
    if (client.stage == Stage::kDone) return;
    if (client.stage == Stage::kConnecting) {
      int error = 0;
      socklen_t size = sizeof error;
      ::getsockopt(client.fd, SOL_SOCKET, SO_ERROR, &error, &size);
      if (error != 0) return fail(client, std::string("connect: ") + std::strerror(error));
      if ((events & EPOLLOUT) == 0) return;
      client.stage = Stage::kUpgrading;
      client.out = kUpgradeRequest;
    }
    bool ended = false;  // the server closed or reset the connection
    if (!client.out.empty()) {
      const ssize_t sent =
          ::send(client.fd, client.out.data(), client.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent > 0) client.out.erase(0, static_cast<std::size_t>(sent));
      // A refused client may find the connection closed under its request: what the server
      // answered before that is still to be read.
      if (sent < 0 && errno != EAGAIN) ended = true;
    }
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0 || ended) {
      char buffer[16384];
      while (true) {
        const ssize_t got = ::recv(client.fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got > 0) {
          client.in.append(buffer, static_cast<std::size_t>(got));
          continue;
        }
        if (got == 0 || errno != EAGAIN) ended = true;
        break;
      }
      process(client);
    }
    if (client.stage == Stage::kDone) return;
    if (ended) return fail(client, "the connection ended unanswered");
    epoll_event event{};
    event.events = EPOLLIN | (client.out.empty() ? 0u : static_cast<std::uint32_t>(EPOLLOUT));
    event.data.u32 = static_cast<std::uint32_t>(&client - clients_.data());
    ::epoll_ctl(epoll_, EPOLL_CTL_MOD, client.fd, &event);
  }

  void process(Client& client) {
    if (client.stage == Stage::kUpgrading) {
      const auto end = client.in.find("\r\n\r\n");
      if (end == std::string::npos) return;
      const std::string head = client.in.substr(0, end + 4);
      client.in.erase(0, end + 4);
      if (head.rfind("HTTP/1.1 ", 0) != 0) return fail(client, "not HTTP: " + head.substr(0, 40));
      client.outcome.status = std::stoi(head.substr(9, 3));
      client.outcome.retry_after = head.find("\r\nRetry-After: ") != std::string::npos;
      if (client.outcome.status != 101) {
        finish(client, true);
        return;
      }
      client.stage = Stage::kHello;
      client.out += RawWsClient::frame(
          kText, Json{{"type", "hello"}, {"name", "flood"}, {"protocol", 1}}.dump());
    }
    while (client.stage == Stage::kHello || client.stage == Stage::kFollowUp) {
      // A server frame: unmasked, with a 7-bit, 16-bit or 64-bit length.
      if (client.in.size() < 2) return;
      const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(client.in[i]); };
      std::size_t length = byte(1) & 0x7f;
      std::size_t header = 2;
      if (length >= 126) {
        header = length == 126 ? 4 : 10;
        if (client.in.size() < header) return;
        length = 0;
        for (std::size_t i = 2; i < header; ++i) length = (length << 8) | byte(i);
      }
      if (client.in.size() < header + length) return;
      const unsigned opcode = byte(0) & 0x0f;
      const std::string payload = client.in.substr(header, length);
      client.in.erase(0, header + length);
      if (opcode == kClose) return fail(client, "closed by the server: " + payload);
      if (opcode != kText) continue;
      const Json message = Json::parse(payload, nullptr, false);
      const std::string type = message.is_object() ? message.value("type", "") : "";
      if (client.stage == Stage::kHello && type == "welcome") {
        client.outcome.welcomed = true;
        if (options_.follow_up.is_null()) return finish(client, false);
        client.stage = Stage::kFollowUp;
        client.out += RawWsClient::frame(kText, options_.follow_up.dump());
      } else if (client.stage == Stage::kFollowUp && type == options_.follow_up_reply) {
        client.outcome.followed = true;
        return finish(client, false);
      } else if (type == "error") {
        return fail(client, "error: " + payload);
      }
    }
  }

  // Done: a refused client's connection is closed, a welcomed one's stays open, unread.
  void finish(Client& client, bool close) {
    if (!client.out.empty()) {
      // The last request is still unsent: send it (it is small) before no longer looking.
      ::send(client.fd, client.out.data(), client.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      client.out.clear();
    }
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, client.fd, nullptr);
    if (close) {
      ::close(client.fd);
      client.fd = -1;
    }
    client.stage = Stage::kDone;
    --pending_;
  }

  void fail(Client& client, const std::string& why) {
    client.outcome.failure = why + " (while " + name(client.stage) + ")";
    if (client.stage == Stage::kDone) return;
    finish(client, true);
  }

  const unsigned short port_;
  const Options options_;
  std::vector<Client> clients_;
  int epoll_ = -1;
  int pending_ = 0;
};

// ---- a game in progress --------------------------------------------------------------------

// Two players (from 127.0.0.1) at a started two-seat Big Two table, with a mirror of their
// game for drive_game.
struct Table {
  std::vector<std::unique_ptr<TestClient>> players;
  std::vector<Json> welcomes;
  std::string room;
  std::unique_ptr<Game> mirror;
  std::uint64_t seed = 0;
  std::int64_t seq = 0;  // the room's seq as the test last saw it

  std::vector<TestClient*> clients() const { return {players[0].get(), players[1].get()}; }
  // Plays up to `moves` more moves (0: to the end), from where the test last left it.
  DriveResult play(int moves) {
    DriveResult result = drive_game(clients(), {}, room, *mirror, seq, seed, moves);
    seq = result.last_seq;
    return result;
  }
};

Table open_table(unsigned short port, std::uint64_t seed) {
  Table table;
  table.seed = seed;
  for (int s = 0; s < 2; ++s) {
    table.players.push_back(std::make_unique<TestClient>("127.0.0.1", port));
    table.welcomes.push_back(table.players.back()->hello("p" + std::to_string(s)));
  }
  const Json created = table.players[0]->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}, {"options", {{"seed", seed}}}});
  table.room = created.value("room", "");
  if (table.room.empty()) throw std::runtime_error("create_room: " + created.dump());
  const Json joined = table.players[1]->request({{"type", "join_room"}, {"room", table.room}});
  if (joined.value("type", "") != "joined") throw std::runtime_error("join: " + joined.dump());
  const Json started = table.players[0]->request({{"type", "start"}, {"room", table.room}});
  if (started.value("type", "") != "ok") throw std::runtime_error("start: " + started.dump());
  for (auto& player : table.players) {
    if (!player->next_of("state")) throw std::runtime_error("no first state");
  }
  std::string error;
  table.mirror = create_game(*find_game("bigtwo"), Json::object(), 2, seed, nullptr, error);
  if (!table.mirror) throw std::runtime_error("mirror: " + error);
  return table;
}

// Whether 127.0.0.1:port answers GET /healthz with 200 within `limit`; bounded where
// TestClient would wait for ever on a server that accepts nothing.
bool healthz_within(unsigned short port, milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    const int fd = start_connection("127.0.0.1", port);
    const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    std::string answer;
    bool sent = false;
    while (Clock::now() < deadline && answer.find("\r\n\r\n") == std::string::npos) {
      pollfd p{fd, static_cast<short>(sent ? POLLIN : POLLOUT), 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      if (!sent) {
        sent = ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
               static_cast<ssize_t>(request.size());
        if (!sent) break;
        continue;
      }
      char buffer[512];
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      if (got <= 0) break;
      answer.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    if (answer.rfind("HTTP/1.1 200", 0) == 0) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

// ---- the cases -----------------------------------------------------------------------------

// Out of descriptors (an operator's `prlimit --pid PID --nofile=N:N`, or more clients than
// LimitNOFILE): accept fails with EMFILE while connections wait in the listen backlog. The
// server must back off rather than spin on the ever-readable listener, log the condition
// about once a second rather than once per failed accept, count it, keep its rooms playing,
// and accept again once descriptors are free.
TEST(Flood, OutOfDescriptorsTheServerBacksOffPlaysOnAndAcceptsAgain) {
  const fs::path dir = scratch_dir("flood_test", "descriptors");
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--data-dir", (dir / "data").string(), "--threads", "2",
                        // The connections that use the descriptors up stay until released.
                        "--handshake-timeout-ms", "60000"},
                       dir, "descriptors");
  ASSERT_EQ(server.start(), "");
  const pid_t pid = server.pid();
  Table table = open_table(server.port(), 21);

  // A limit a couple of dozen descriptors above what the server holds with its game going.
  constexpr int kSpare = 24;
  const int held = open_fds(pid);
  const rlimit limit{static_cast<rlim_t>(held + kSpare), static_cast<rlim_t>(held + kSpare)};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &limit, nullptr), 0) << std::strerror(errno);
  // More connections than descriptors left: the last ones wait in the listen backlog.
  Sockets extra;
  for (int i = 0; i < kSpare + 40; ++i) {
    extra.add(start_connection(loopback_source(11, i), server.port()));
  }
  const auto flooded = Clock::now();
  while (lines_with(server.log(), "accept failed") == 0 && seconds_since(flooded) < 10) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_GE(lines_with(server.log(), "accept failed"), 1) << tail_of(server.log(), 10);
  const auto exhausted = Clock::now();
  const int fds_exhausted = open_fds(pid);

  // The listener stays readable: a server that retried at once would burn a core.
  const double cpu_before = cpu_seconds(pid);
  std::this_thread::sleep_for(seconds(1));
  const double cpu_idle = cpu_seconds(pid) - cpu_before;
  EXPECT_LT(cpu_idle, 0.2) << "CPU seconds in one second out of descriptors";

  // The game goes on meanwhile (its connections, and the store's files, are open already).
  const auto play_start = Clock::now();
  const DriveResult during = table.play(12);
  const double play_seconds = seconds_since(play_start);
  EXPECT_EQ(during.failure, "");
  EXPECT_EQ(during.moves, 12);

  const double exhausted_seconds = seconds_since(exhausted);
  const int accept_lines = lines_with(server.log(), "accept failed");
  // About one line a second (and one at the start), however many accepts failed.
  EXPECT_LE(accept_lines, static_cast<int>(exhausted_seconds) + 2) << tail_of(server.log(), 20);

  // The descriptors come back: the server reads each extra connection's end and closes it,
  // then accepts the ones still waiting in the backlog, then new clients.
  extra.close_all();
  const auto released = Clock::now();
  EXPECT_TRUE(healthz_within(server.port(), seconds(10))) << tail_of(server.log(), 10);
  const double resumed_after = seconds_since(released);
  // A player who lost the connection comes back with its token and finishes the game.
  table.players[1]->drop();
  table.players[1] = std::make_unique<TestClient>("127.0.0.1", server.port());
  const Json again = table.players[1]->request(
      {{"type", "hello"}, {"token", table.welcomes[1]["token"]}, {"protocol", 1}});
  ASSERT_EQ(again.value("type", ""), "welcome") << again.dump();
  EXPECT_EQ(again["player"], table.welcomes[1]["player"]);
  const DriveResult rest = table.play(0);
  EXPECT_EQ(rest.failure, "");
  EXPECT_TRUE(rest.finished);

  const std::string metrics = http_get(server.port(), "/metrics");
  const double accept_errors = metric(metrics, "parlor_accept_errors_total");
  EXPECT_GE(accept_errors, 1) << metrics.substr(0, 2000);
  EXPECT_GE(lines_with(server.log(), "accepting connections again"), 1)
      << tail_of(server.log(), 10);
  EXPECT_TRUE(alive(pid));
  std::cout << "[ figures  ] descriptors: limit " << limit.rlim_cur << " (" << held
            << " held before the flood), " << fds_exhausted << " open when exhausted; CPU "
            << cpu_idle << " s in 1 s exhausted; 12 moves in " << play_seconds << " s meanwhile; "
            << accept_lines << " 'accept failed' lines in " << exhausted_seconds << " s, "
            << accept_errors << " accept errors counted; healthz answered " << resumed_after
            << " s after the extra connections closed\n";
}

// A thousand slowloris clients, each from its own address: a partial upgrade request, then
// one more header line every 250 ms, never the blank line that ends it. The handshake timeout
// bounds the whole request (not each read), so each is cut off about that long after it
// connected, however it trickles; a player connects and plays meanwhile.
TEST(Flood, AThousandSlowlorisHandshakesAreCutOffWhileAPlayerPlays) {
  constexpr int kSlow = 1000;
  constexpr milliseconds kHandshakeTimeout{3000};
  raise_fd_limit(4 * kSlow);
  const fs::path dir = scratch_dir("flood_test", "slowloris");
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "none", "--threads", "2", "--handshake-timeout-ms",
                        std::to_string(kHandshakeTimeout.count())},
                       dir, "slowloris");
  ASSERT_EQ(server.start(), "");
  const pid_t pid = server.pid();
  const int fds_before = open_fds(pid);

  struct Slow {
    int fd = -1;
    Clock::time_point opened;
    double lasted = -1;  // seconds from opened to the server's end of it; -1 while open
    bool answered = false;
  };
  std::vector<Slow> slow(kSlow);
  Sockets sockets;
  const auto flood_start = Clock::now();
  for (int i = 0; i < kSlow; ++i) {
    slow[static_cast<std::size_t>(i)].fd = start_connection(loopback_source(12, i), server.port());
    slow[static_cast<std::size_t>(i)].opened = Clock::now();
    sockets.add(slow[static_cast<std::size_t>(i)].fd);
  }
  // The first piece of each request, once its connection is up.
  const std::string first = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n";
  std::vector<pollfd> connecting;
  for (const Slow& s : slow) connecting.push_back({s.fd, POLLOUT, 0});
  int started = 0;
  while (started < kSlow && seconds_since(flood_start) < 10) {
    ::poll(connecting.data(), connecting.size(), 50);
    for (pollfd& p : connecting) {
      if (p.revents == 0 || p.fd < 0) continue;
      ASSERT_EQ(::send(p.fd, first.data(), first.size(), MSG_NOSIGNAL),
                static_cast<ssize_t>(first.size()))
          << std::strerror(errno);
      p.fd = -1;  // poll ignores it from now on
      ++started;
    }
  }
  ASSERT_EQ(started, kSlow);
  std::atomic<int> still_open{kSlow};
  std::atomic<bool> stop{false};
  // Trickles header lines and notices each end: one thread for the thousand sockets.
  std::thread trickler([&] {
    auto next_line = Clock::now() + milliseconds(250);
    int line = 0;
    while (still_open > 0 && !stop) {
      std::vector<pollfd> watch;
      std::vector<Slow*> who;
      for (Slow& s : slow) {
        if (s.lasted >= 0) continue;
        watch.push_back({s.fd, POLLIN, 0});
        who.push_back(&s);
      }
      ::poll(watch.data(), watch.size(), 50);
      for (std::size_t i = 0; i < watch.size(); ++i) {
        if (watch[i].revents == 0) continue;
        char buffer[256];
        const ssize_t got = ::recv(watch[i].fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got < 0 && errno == EAGAIN) continue;
        if (got > 0) who[i]->answered = true;
        who[i]->lasted = seconds_since(who[i]->opened);
        --still_open;
      }
      if (Clock::now() >= next_line) {
        const std::string header = "X-Slow-" + std::to_string(line++) + ": 1\r\n";
        for (Slow* s : who) {
          if (s->lasted < 0) ::send(s->fd, header.data(), header.size(), MSG_NOSIGNAL);
        }
        next_line += milliseconds(250);
      }
    }
  });
  // A player meanwhile: connected and welcomed while the slow ones hold their connections.
  std::optional<Table> table;
  double welcomed_at = 0;
  int open_at_welcome = 0;
  try {
    table = open_table(server.port(), 22);
    welcomed_at = seconds_since(flood_start);
    open_at_welcome = still_open;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a player could not start a game during the flood: " << e.what();
  }
  DriveResult game;
  const auto game_start = Clock::now();
  if (table) game = table->play(0);
  const double game_seconds = seconds_since(game_start);
  const auto deadline = flood_start + kHandshakeTimeout + seconds(10);
  while (still_open > 0 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(50));
  stop = true;
  trickler.join();

  EXPECT_EQ(game.failure, "");
  EXPECT_TRUE(game.finished);
  EXPECT_GE(open_at_welcome, kSlow * 9 / 10)
      << "the player was welcomed only at " << welcomed_at << " s";
  EXPECT_EQ(still_open, 0) << "slow connections still open " << seconds_since(flood_start)
                           << " s after the flood began";
  double shortest = 1e9;
  double longest = 0;
  int answered = 0;
  for (const Slow& s : slow) {
    if (s.lasted < 0) continue;
    shortest = std::min(shortest, s.lasted);
    longest = std::max(longest, s.lasted);
    answered += s.answered;
  }
  const double timeout_s = std::chrono::duration<double>(kHandshakeTimeout).count();
  // Cut by the timeout, not before (trickling must not look like a dead peer, nor anything
  // else close them early) and not much after (trickling must not extend it).
  EXPECT_GE(shortest, timeout_s - 0.25);
  EXPECT_LE(longest, timeout_s + 3.0);
  EXPECT_EQ(answered, 0) << "an unfinished request was answered";
  EXPECT_TRUE(alive(pid));
  std::this_thread::sleep_for(milliseconds(200));
  const int fds_after = open_fds(pid);
  EXPECT_LE(fds_after, fds_before + 8) << "descriptors not given back";
  std::cout << "[ figures  ] slowloris: " << kSlow << " connections cut after " << shortest
            << " to " << longest << " s (--handshake-timeout-ms " << kHandshakeTimeout.count()
            << "); a player welcomed at " << welcomed_at << " s with " << open_at_welcome
            << " of them open, its game of " << game.moves << " moves in " << game_seconds
            << " s; server descriptors " << fds_before << " before, " << fds_after << " after\n";
}

// A thousand spectators of a busy room that never read. The room never waits for them: each
// is closed as a slow consumer once its queue passes --max-queue-messages or
// --max-queue-bytes (on the chat or on the game), and the server's memory stays within that
// bound per connection (the frames themselves are shared by every recipient). Spectators
// coming and going reach the members as one `room` push per half second, not one each
// (docs/OPERATIONS.md, "Floods and exhaustion").
TEST(Flood, AThousandClientsThatNeverReadAreClosedAndMemoryStaysBounded) {
  constexpr int kWatchers = 1000;
  constexpr long kQueueBytes = 256 * 1024;  // --max-queue-bytes, by default
  // Chat lines of 480 bytes: about 780 KB to each watcher, past what the kernel's buffers
  // (SO_SNDBUF is the queue's byte bound, which Linux doubles) and the queue hold for one.
  constexpr int kChats = 1400;
  // What a connection may cost beside its queue: the session, Beast's buffers, its place in
  // the room and the player (a few KiB; the measured figure is printed).
  constexpr long kConnectionBytes = 32 * 1024;
  raise_fd_limit(4 * kWatchers);
  const fs::path dir = scratch_dir("flood_test", "non-readers");
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "none", "--threads", "2",
                        // The two players chat fast to make the room busy.
                        "--rate-per-second", "1000", "--rate-burst", "1000"},
                       dir, "non-readers");
  ASSERT_EQ(server.start(), "");
  const pid_t pid = server.pid();
  Table table = open_table(server.port(), 23);
  const long rss_idle = rss_kib(pid);
  RssSampler rss(pid);

  // Small receive buffers: the kernel holds little for them once they stop reading.
  Crowd watchers(server.port(), {.size = kWatchers,
                                 .block = 13,
                                 .receive_buffer = 4096,
                                 .follow_up = {{"type", "watch_room"}, {"room", table.room}},
                                 .follow_up_reply = "watching"});
  const auto join_start = Clock::now();
  std::atomic<bool> joined{false};
  std::thread joining([&] {
    watchers.run(seconds(30));
    joined = true;
  });
  // The players read meanwhile (the joins reach them as `room` pushes): they are the
  // clients that keep up.
  while (!joined) {
    for (auto& player : table.players) player->next(milliseconds(10));
  }
  joining.join();
  const double join_seconds = seconds_since(join_start);
  int watching = 0;
  std::string first_failure;
  for (const Outcome& outcome : watchers.outcomes()) {
    watching += outcome.followed;
    if (!outcome.failure.empty() && first_failure.empty()) first_failure = outcome.failure;
  }
  // Each was reading until its `watching` came: none was closed as slow before.
  EXPECT_EQ(watching, kWatchers) << first_failure;
  const long rss_watched = rss_kib(pid);

  // The busy room: lines of chat, each pushed to every member, then the game.
  const auto busy_start = Clock::now();
  const std::string line(480, 'x');
  int chats_ok = 0;
  for (int i = 0; i < kChats; ++i) {
    const Json reply = table.players[static_cast<std::size_t>(i % 2)]->request(
        {{"type", "chat"}, {"room", table.room}, {"text", line}});
    chats_ok += reply.value("type", "") == "ok";
  }
  const double chat_seconds = seconds_since(busy_start);
  const DriveResult game = table.play(0);
  const double busy_seconds = seconds_since(busy_start);
  EXPECT_EQ(chats_ok, kChats);
  EXPECT_EQ(game.failure, "");
  EXPECT_TRUE(game.finished);

  // Every spectator is closed (the close frame cannot reach a client that does not read: the
  // server drops the connection 2 s later), leaving the two players, who read on (the
  // spectators gone reach them as `room` pushes).
  std::string metrics;
  const auto deadline = Clock::now() + seconds(15);
  while (Clock::now() < deadline) {
    metrics = http_get(server.port(), "/metrics");
    if (metric(metrics, "parlor_slow_consumers_closed_total") >= kWatchers &&
        metric(metrics, "parlor_connections") <= 2) {
      break;
    }
    for (auto& player : table.players) player->next(milliseconds(50));
  }
  const double closed_after = seconds_since(busy_start);
  const long rss_peak = rss.stop();
  const long rss_after = rss_kib(pid);
  EXPECT_EQ(metric(metrics, "parlor_slow_consumers_closed_total"), kWatchers);
  EXPECT_EQ(metric(metrics, "parlor_connections"), 2);

  const long grown = (rss_peak - rss_idle) * 1024;
  // At most a full queue and a connection's own cost for each of them at once.
  EXPECT_LE(grown, kWatchers * (kQueueBytes + kConnectionBytes));
  EXPECT_TRUE(alive(pid));
  std::cout << "[ figures  ] non-readers: " << kWatchers << " watchers joined in " << join_seconds
            << " s; RSS " << rss_idle << " KiB idle, " << rss_watched
            << " KiB once all watched, peak " << rss_peak << " KiB (+" << grown / 1024 << " KiB, "
            << grown / kWatchers << " B per watcher; bound "
            << kWatchers * (kQueueBytes + kConnectionBytes) / 1024 << " KiB), " << rss_after
            << " KiB after; " << kChats << " chats in " << chat_seconds << " s, the game ("
            << game.moves << " moves) done " << busy_seconds
            << " s after the first chat; all closed " << closed_after << " s after it\n";
}

// A burst of ten thousand connections, a hundred from each of a hundred addresses, with the
// default per-address limits: each is either upgraded and welcomed, or refused with an HTTP
// status and Retry-After (429: over its address's limits; 503: shutting down), never closed
// unanswered; the server serves normally afterwards. The test raises its own descriptor limit
// (the server inherits it); where the hard limit is lower and cannot be raised, the burst is
// sized to it and the test says so.
TEST(Flood, ABurstOfTenThousandConnectionsIsAnsweredEveryOne) {
  constexpr int kWanted = 10000;
  constexpr int kPerAddress = 100;
  const rlim_t got = raise_fd_limit(2 * kWanted + 1024);
  const int burst = std::min<int>(kWanted, static_cast<int>(got) - 1024);
  if (burst < kWanted) {
    std::cout << "[ note     ] descriptor limit " << got << ": a burst of " << burst
              << " connections instead of " << kWanted << "\n";
  }
  const fs::path dir = scratch_dir("flood_test", "burst");
  ServerProcess server(PARLOR_SERVER_BINARY, {"--dev", "--store", "none", "--threads", "2"}, dir,
                       "burst");
  ASSERT_EQ(server.start(), "");
  const pid_t pid = server.pid();
  const double cpu_before = cpu_seconds(pid);
  const long rss_before = rss_kib(pid);

  Crowd crowd(server.port(), {.size = burst,
                              .block = 14,
                              .per_address = kPerAddress,
                              .receive_buffer = 0,
                              .follow_up = nullptr,
                              .follow_up_reply = ""});
  const auto start = Clock::now();
  crowd.run(seconds(45));
  const double burst_seconds = seconds_since(start);
  const long rss_burst = rss_kib(pid);
  const int fds_burst = open_fds(pid);
  int welcomed = 0;
  int refused_429 = 0;
  int refused_503 = 0;
  int failed = 0;
  std::string failures;
  for (const Outcome& outcome : crowd.outcomes()) {
    if (outcome.welcomed) {
      ++welcomed;
    } else if (outcome.status == 429 && outcome.retry_after) {
      ++refused_429;
    } else if (outcome.status == 503 && outcome.retry_after) {
      ++refused_503;
    } else {
      if (++failed <= 5) {
        failures += "\n  status " + std::to_string(outcome.status) + ": " + outcome.failure;
      }
    }
  }
  EXPECT_EQ(failed, 0) << "connections neither welcomed nor refused with a status:" << failures;
  EXPECT_GT(welcomed, 0);
  EXPECT_TRUE(alive(pid));
  crowd.close_all();
  // Healthy afterwards: a new player is welcomed and answered.
  EXPECT_TRUE(healthz_within(server.port(), seconds(10)));
  TestClient after("127.0.0.1", server.port());
  EXPECT_EQ(after.hello("after").value("type", ""), "welcome");
  EXPECT_EQ(after.request({{"type", "ping"}}).value("type", ""), "pong");
  const std::string metrics = http_get(server.port(), "/metrics");
  std::cout << "[ figures  ] burst: " << burst << " connections from " << burst / kPerAddress
            << " addresses in " << burst_seconds << " s: " << welcomed << " welcomed, "
            << refused_429 << " refused 429, " << refused_503 << " refused 503, " << failed
            << " unanswered; server CPU " << cpu_seconds(pid) - cpu_before << " s, RSS "
            << rss_before << " KiB before, " << rss_burst << " KiB with " << fds_burst
            << " descriptors open; refusals counted "
            << metric(metrics, "parlor_connections_refused_total") << "\n";
}

}  // namespace
}  // namespace parlor::testing
