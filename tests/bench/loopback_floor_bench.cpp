// The kernel's share of a move: the socket work parlor-server does for one Big Two move on
// loopback — read one small frame, write an `ok` and a state push to the mover (in one send,
// as the server does, or in two, as it did before) and a state push to each other player —
// done by a bare epoll loop with no framework, JSON or game at all. Its CPU time per move is
// the floor under the server's own figure (docs/BENCHMARKS.md).
//
// The "server" is the benchmark thread (pinned to CPU 0); four "players" are one client
// thread pinned to CPU 1 that reads every push and answers each round with the next move, so
// the wake-ups across CPUs are those of the real benchmark. Linux only.
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kPlayers = 4;
// Sizes of the real frames (WebSocket header included): a move, an `ok`, a state push.
constexpr std::size_t kMoveBytes = 80;
constexpr std::size_t kOkBytes = 40;
constexpr std::size_t kStateBytes = 700;

void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

// A connected loopback TCP pair with TCP_NODELAY on both ends, like the server's sockets.
std::array<int, 2> tcp_pair(int listener, const sockaddr_in& address) {
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  check(::connect(client, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0,
        "connect");
  const int server = ::accept(listener, nullptr, nullptr);
  check(server >= 0, "accept");
  const int one = 1;
  ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return {server, client};
}

void read_exactly(int fd, char* buffer, std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, buffer, bytes, 0);
    if (n <= 0) return;
    buffer += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

// Range(0): rooms playing at once. With one room every push wakes a sleeping reader on the
// other CPU; with many, as in the load benchmark, the readers are mostly awake.
// Range(1): 1 = the mover's `ok` and state go out in one send (the server today), 0 = two.
void BM_LoopbackFloorPerMove(benchmark::State& state) {
  const int rooms = static_cast<int>(state.range(0));
  const bool one_send_to_mover = state.range(1) != 0;
  const int sockets = rooms * kPlayers;
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  check(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0, "bind");
  check(::listen(listener, SOMAXCONN) == 0, "listen");
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  std::vector<int> server_fds(static_cast<std::size_t>(sockets));
  std::vector<int> client_fds(static_cast<std::size_t>(sockets));
  for (std::size_t i = 0; i < server_fds.size(); ++i) {
    const auto pair = tcp_pair(listener, address);
    server_fds[i] = pair[0];
    client_fds[i] = pair[1];
  }
  ::close(listener);
  // Socket r * kPlayers + p is player p of room r; player 0 moves.

  // The players: each room's next move goes out once its ok and four pushes are read.
  std::atomic<bool> stop{false};
  std::thread players([&] {
    pin_to_cpu(1);
    const int epoll = ::epoll_create1(0);
    for (int i = 0; i < sockets; ++i) {
      epoll_event interest{};
      interest.events = EPOLLIN;
      interest.data.u32 = static_cast<std::uint32_t>(i);
      ::epoll_ctl(epoll, EPOLL_CTL_ADD, client_fds[static_cast<std::size_t>(i)], &interest);
    }
    constexpr std::size_t kRound = kOkBytes + kPlayers * kStateBytes;
    std::vector<std::size_t> missing(static_cast<std::size_t>(rooms), kRound);
    const std::string move(kMoveBytes, 'm');
    for (int r = 0; r < rooms; ++r) {
      ::send(client_fds[static_cast<std::size_t>(r * kPlayers)], move.data(), move.size(), 0);
    }
    std::vector<char> buffer(64 * 1024);
    std::array<epoll_event, 64> ready{};
    while (!stop.load(std::memory_order_relaxed)) {
      const int n = ::epoll_wait(epoll, ready.data(), static_cast<int>(ready.size()), 100);
      for (int e = 0; e < n; ++e) {
        const int i = static_cast<int>(ready[static_cast<std::size_t>(e)].data.u32);
        const ssize_t got = ::recv(client_fds[static_cast<std::size_t>(i)], buffer.data(),
                                   buffer.size(), MSG_DONTWAIT);
        if (got <= 0) continue;
        auto& left = missing[static_cast<std::size_t>(i / kPlayers)];
        left -= std::min(left, static_cast<std::size_t>(got));
        if (left == 0) {
          left = kRound;
          ::send(client_fds[static_cast<std::size_t>(i / kPlayers * kPlayers)], move.data(),
                 move.size(), MSG_NOSIGNAL);
        }
      }
    }
    ::close(epoll);
  });

  cpu_set_t original;
  pthread_getaffinity_np(pthread_self(), sizeof original, &original);
  pin_to_cpu(0);
  const int epoll = ::epoll_create1(0);
  for (int r = 0; r < rooms; ++r) {
    epoll_event interest{};
    interest.events = EPOLLIN;
    interest.data.u32 = static_cast<std::uint32_t>(r);
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, server_fds[static_cast<std::size_t>(r * kPlayers)],
                &interest);
  }
  const std::string ok(kOkBytes, 'o');
  const std::string push(kStateBytes, 's');
  std::string in(kMoveBytes, '\0');
  std::array<epoll_event, 64> ready{};
  int ready_count = 0;
  int next = 0;
  for (auto _ : state) {
    while (next == ready_count) {
      ready_count = ::epoll_wait(epoll, ready.data(), static_cast<int>(ready.size()), -1);
      next = 0;
      if (ready_count < 0) ready_count = 0;
    }
    const int room = static_cast<int>(ready[static_cast<std::size_t>(next++)].data.u32);
    const int mover = server_fds[static_cast<std::size_t>(room * kPlayers)];
    read_exactly(mover, in.data(), kMoveBytes);
    if (one_send_to_mover) {
      std::array<iovec, 2> parts{iovec{const_cast<char*>(ok.data()), ok.size()},
                                 iovec{const_cast<char*>(push.data()), push.size()}};
      msghdr message{};
      message.msg_iov = parts.data();
      message.msg_iovlen = parts.size();
      ::sendmsg(mover, &message, MSG_NOSIGNAL);
    } else {
      ::send(mover, ok.data(), ok.size(), MSG_NOSIGNAL);
    }
    for (int p = one_send_to_mover ? 1 : 0; p < kPlayers; ++p) {
      ::send(server_fds[static_cast<std::size_t>(room * kPlayers + p)], push.data(), push.size(),
             MSG_NOSIGNAL);
    }
  }
  stop.store(true);
  players.join();
  for (std::size_t i = 0; i < server_fds.size(); ++i) {
    ::close(server_fds[i]);
    ::close(client_fds[i]);
  }
  ::close(epoll);
  pthread_setaffinity_np(pthread_self(), sizeof original, &original);
  state.SetItemsProcessed(state.iterations());
}

// CPU time is the benchmark thread's own: the server side of every move.
BENCHMARK(BM_LoopbackFloorPerMove)
    ->ArgNames({"rooms", "one_send_to_mover"})
    ->Args({1, 1})
    ->Args({100, 1})
    ->Args({1, 0})
    ->Args({100, 0})
    ->MinTime(3.0);

}  // namespace
