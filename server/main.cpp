// parlor-server: flags in, `listening on HOST:PORT` out, graceful stop on SIGINT/SIGTERM.
#include <chrono>
#include <csignal>
#include <iostream>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/allocator_tuning.h"
#include "server/config.h"
#include "server/log.h"
#include "server/server.h"
#include "server/server_state.h"

int main(int argc, char** argv) {
  using namespace parlor::server;
  tune_allocator();
  std::string error;
  bool help = false;
  auto config = parse_config(argc, argv, error, help);
  if (help) {
    std::cout << usage();
    return 0;
  }
  if (!config) {
    std::cerr << "parlor-server: " << error << "\n";
    return 2;
  }
  configure_log(config->log_format, config->log_level);
  try {
    Server server(*config);
    server.start();
    const auto endpoint = server.endpoint();
    std::cout << "listening on " << endpoint.address().to_string() << ":" << endpoint.port()
              << std::endl;
    // Signals are waited for on a separate io_context so stop() can join the workers.
    boost::asio::io_context signals_io;
    boost::asio::signal_set signals(signals_io, SIGINT, SIGTERM);
    // The admin API's drain ends the wait as SIGTERM does: the same stop() follows, a moment
    // later, so that the API's answer is written before the connections close.
    boost::asio::steady_timer drain_after_answer(signals_io);
    server.state().set_drain_handler([&signals_io, &drain_after_answer] {
      boost::asio::post(signals_io, [&signals_io, &drain_after_answer] {
        drain_after_answer.expires_after(std::chrono::milliseconds(100));
        drain_after_answer.async_wait([&signals_io](boost::system::error_code ec) {
          if (ec) return;
          log_info("admin API: shutting down");
          signals_io.stop();
        });
      });
    });
    signals.async_wait([&](boost::system::error_code, int signal) {
      log_info("signal " + std::to_string(signal) + ": shutting down");
    });
    signals_io.run();
    server.stop();
    log_info("stopped");
  } catch (const std::exception& e) {
    std::cerr << "parlor-server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
