// parlor-bot: one network player. Joins a room (--room ID) or creates one (--create KIND,
// printing "room ID"), plays it with a strategy (--strategy random|greedy|ismcts, or
// easy|medium|hard) seeing only its own seat's view and prompt, reconnects with its token when the
// connection drops, and stops after --games N games or --max-seconds, printing a one-line summary:
//
//   parlor-bot --url ws://127.0.0.1:8080/ws --create bigtwo --seats 2 --strategy greedy
//   parlor-bot --url ws://127.0.0.1:8080/ws --room ROOM --name bob --think-ms 500
//
// Exit status: 0 when it played its games (or, with --games 0, ran until stopped), 1 when
// it could not (refused, time limit first), 2 for a bad command line. See README.md.
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <iostream>

#include "bots/net/bot_client.h"

namespace {

using parlor::client::BotClient;
using parlor::client::BotReport;

int usage(const std::string& error) {
  if (!error.empty()) std::cerr << "parlor-bot: " << error << "\n";
  std::cerr << parlor::client::bot_usage();
  return 2;
}

void print_summary(const std::string& name, const BotReport& report, double seconds) {
  int errors = 0;
  std::string codes;
  for (const auto& [code, count] : report.errors) {
    errors += count;
    codes += (codes.empty() ? "" : ",") + code + ":" + std::to_string(count);
  }
  std::cout << "parlor-bot name=" << name << " player=" << report.player << " room=" << report.room
            << " seat=" << report.seat << " games=" << report.games << " wins=" << report.wins
            << " moves=" << report.moves << " reconnects=" << report.reconnects
            << " errors=" << errors << (codes.empty() ? "" : " (" + codes + ")")
            << " seconds=" << seconds << " result=" << report.outcome << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  auto options = parlor::client::parse_bot_options(argc, argv, error);
  if (!options) {
    if (!error.empty()) return usage(error);
    std::cout << parlor::client::bot_usage();
    return 0;
  }
  auto url = parlor::client::parse_ws_url(options->url, error);
  if (!url) return usage("--url: " + error);
  std::shared_ptr<boost::asio::ssl::context> tls;
  if (url->tls) tls = parlor::client::make_tls_context(!options->insecure);

  const auto started = std::chrono::steady_clock::now();
  boost::asio::io_context io(1);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  const std::string name = options->name;
  auto bot = std::make_shared<BotClient>(io, std::move(*options), std::move(*url), tls,
                                         [&signals] { signals.cancel(); });
  signals.async_wait([&bot](boost::system::error_code ec, int) {
    if (!ec) bot->stop("interrupted");
  });
  bot->start();
  io.run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  print_summary(name, bot->report(), seconds);
  return bot->succeeded() ? 0 : 1;
}
