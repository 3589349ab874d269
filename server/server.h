// A whole parlor-server: io_context, worker threads, listener and shared state.
// main() runs one; integration tests run one in-process on an ephemeral port.
#pragma once

#include <boost/asio/io_context.hpp>

#include <memory>
#include <thread>
#include <vector>

#include "server/config.h"
#include "server/net.h"

namespace parlor::server {

class Listener;
class OneThreadPasses;
class ServerState;
class Store;

class Server {
 public:
  explicit Server(ServerConfig config);
  ~Server();

  // Binds and starts the threads; throws on a bad address or TLS files.
  void start();
  tcp::endpoint endpoint() const;
  // Graceful: /readyz answers 503; in cluster mode (or with --drain-ms) connections are
  // served for the drain period first. Then stop accepting, close every WebSocket (1012 after
  // a drain or in a cluster: reconnect and resume; 1001 otherwise), close the links to other
  // nodes, let writes drain briefly, and stop the threads. Idempotent.
  void stop();
  // Blocks until stop() has finished (from another thread or a signal handler).
  void wait();

  ServerState& state() { return *state_; }

 private:
  void run_committing_passes(Store& store);

  ServerConfig config_;
  net::io_context io_;
  // The only I/O thread's loop, when the store commits at the end of each pass.
  std::unique_ptr<OneThreadPasses> one_thread_passes_;
  std::shared_ptr<ServerState> state_;
  std::shared_ptr<Listener> listener_;
  std::vector<std::thread> threads_;
  bool stopped_ = false;
};

}  // namespace parlor::server
