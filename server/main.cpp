// parlor-server: flags in, `listening on HOST:PORT` out, graceful stop on SIGINT/SIGTERM.
#include <csignal>
#include <iostream>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "server/config.h"
#include "server/log.h"
#include "server/server.h"

int main(int argc, char** argv) {
  using namespace parlor::server;
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
