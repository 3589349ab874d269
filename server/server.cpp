#include "server/server.h"

#include <boost/asio/executor_work_guard.hpp>

#include "server/engine/engine_directory.h"
#include "server/listener.h"
#include "server/log.h"
#include "server/one_thread_passes.h"
#include "server/server_state.h"
#include "server/store/store.h"
#include "server/thread_name.h"

namespace parlor::server {
namespace {
// The longest a pass of the only I/O thread runs before it commits (OneThreadPasses): about
// as long as the 1,024 handlers that bound a pass of several threads take.
constexpr auto kLongestPass = std::chrono::milliseconds(10);
}  // namespace

Server::Server(ServerConfig config)
    : config_(std::move(config)),
      io_(config_.threads > 0
              ? config_.threads
              : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()))),
      state_(std::make_shared<ServerState>(io_, config_)) {}

Server::~Server() { stop(); }

void Server::start() {
  std::shared_ptr<net::ssl::context> tls;
  if (!config_.tls_cert.empty()) {
    tls = std::make_shared<net::ssl::context>(net::ssl::context::tls_server);
    tls->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                     net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                     net::ssl::context::no_tlsv1_1);
    tls->use_certificate_chain_file(config_.tls_cert);
    tls->use_private_key_file(config_.tls_key, net::ssl::context::pem);
  }
  // External games are registered before the store's rooms are loaded: some may be theirs.
  register_engines(config_.engines, io_.get_executor(),
                   EngineClientOptions{.timeout = config_.engine_timeout});
  state_->open_store();
  const auto address = net::ip::make_address(config_.bind);
  listener_ = std::make_shared<Listener>(io_, tcp::endpoint(address, config_.port), state_, tls);
  listener_->run();
  if (!config_.cluster.empty()) {
    const auto bound = listener_->local_endpoint();
    state_->start_cluster(config_.bind + ":" + std::to_string(bound.port()));
  }
  state_->lobby().start_sweeper();
  state_->start_lobby_feed();
  state_->start_player_sweeper();
  const int count = config_.threads > 0
                        ? config_.threads
                        : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  Store* store = state_->store();
  const bool commits_here = store != nullptr && store->commits_at_end_of_pass();
  if (commits_here && count == 1) {
    one_thread_passes_ = std::make_unique<OneThreadPasses>(
        io_, [store] { store->commit_pending(); }, kLongestPass);
  }
  for (int i = 0; i < count; ++i) {
    threads_.emplace_back([this, i, store, commits_here] {
      name_this_thread("parlor-io-" + std::to_string(i));
      auto guard = net::make_work_guard(io_);
      if (!commits_here) {
        io_.run();
        return;
      }
      const EndOfPassCommits marker;
      if (one_thread_passes_) {
        one_thread_passes_->run();
      } else {
        run_committing_passes(*store);
      }
    });
  }
}

// The event loop with group commit at the end of each pass (docs/ARCHITECTURE.md,
// "Persistence"), for several I/O threads: wait for one handler, run the others that are ready
// (a bounded number, so that the writes of a long burst are not held back), then commit what
// they queued and acknowledge it here. A move's commit needs no wake-up of the writer thread
// and no post back from it; the moves of every room handled in the pass share one commit.
// (Running the loop as io_context::run() with the commit posted behind the ready handlers
// committed before the sockets' newer input, in smaller batches, and cost more a move:
// docs/BENCHMARKS.md, "A durable move's last costs".) One thread runs OneThreadPasses.
void Server::run_committing_passes(Store& store) {
  constexpr int kMostHandlersPerPass = 1024;
  while (io_.run_one() > 0) {
    for (int n = 1; n < kMostHandlersPerPass && io_.poll_one() > 0; ++n) {
    }
    store.commit_pending();
  }
}

tcp::endpoint Server::endpoint() const { return listener_->local_endpoint(); }

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (listener_) {
    // /readyz answers 503 from here on (and the door refuses new connections with 503, which
    // a proxy retries on another node). During the drain the node's connections play on
    // while the proxy's health checks take it out of rotation.
    state_->set_shutting_down();
    if (const auto drain = drain_period(config_); drain.count() > 0) {
      log_info("draining for " + std::to_string(drain.count()) +
               " ms: /readyz answers 503, connections are served until then");
      std::this_thread::sleep_for(drain);
    }
    listener_->stop();
    state_->lobby().shutdown();
    state_->stop_lobby_feed();
    state_->stop_player_sweeper();
    state_->keepalive().stop();
    // A node that drains is restarted or replaced while the service goes on (in a cluster
    // another node takes its rooms over at once): 1012 tells clients to reconnect and resume.
    // A single server without a drain is going away (1001).
    if (config_.drain || !config_.cluster.empty()) {
      state_->close_all(1012, "service restart: reconnect and resume with your token");
    } else {
      state_->close_all(1001, "server shutting down");
    }
    // Let the close handshakes finish before the threads stop. A client that does not answer
    // is dropped by its session's 2 s close timer, so this wait ends within about 2 s.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (state_->metrics().connections.load() > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  state_->stop_links();
  if (one_thread_passes_) {
    one_thread_passes_->stop();  // and io_: a pass it cuts meanwhile does not undo that
  } else {
    io_.stop();
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  drop_engines();
  state_->stop_blocking();
  state_->close_store();
  state_->stop_cluster();
}

void Server::wait() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace parlor::server
