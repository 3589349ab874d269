// parlor-load: opens R rooms x S seats of network bots against a parlor-server (one
// io_context, thousands of connections), plays random legal moves for a bounded
// duration, and reports throughput and move-to-own-state latency as text or JSON.
//
//   parlor-load --url ws://127.0.0.1:8080/ws --game bigtwo --rooms 100 --seats 4
//               --duration 10 [--think-ms 0] [--follow-room-node] [--json]
//               [--bot-rooms M [--bot-strategy hard] [--bot-game KIND]]
//
// --bot-rooms opens M more rooms, each with one client at seat 0 and server bots (add_bot) in
// every other seat, played over and over: the load of bots thinking next to the measured
// rooms. Throughput and latency count the R rooms only; the bot rooms are reported apart.
//
// The server must allow the message rate (e.g. --rate-per-second 1000 --rate-burst 1000)
// and the connections per IP (--max-connections-per-ip, --max-handshakes-per-ip).
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdlib>
#include <iostream>
#include <string>

#include "bots/load/load_client.h"
#include "bots/net/ws_url.h"

namespace {

using namespace parlor;
using namespace parlor::load;

struct Args {
  std::string url = "ws://127.0.0.1:8080/ws";
  std::string game = "bigtwo";
  int rooms = 10;
  int seats = 4;
  double duration = 10;
  int think_ms = 0;
  int ramp_ms = 2000;
  bool json = false;
  std::uint64_t seed = 1;
  bool follow_room_node = false;
  int bot_rooms = 0;
  std::string bot_strategy = "hard";
  std::string bot_game;  // empty: --game
};

int usage(const std::string& error) {
  if (!error.empty()) std::cerr << "parlor-load: " << error << "\n";
  std::cerr << "usage: parlor-load --url ws://HOST:PORT/ws --game KIND --rooms R --seats S "
               "--duration SECONDS [--think-ms N] [--ramp-ms N] [--seed N] [--follow-room-node] "
               "[--json] [--bot-rooms M [--bot-strategy S] [--bot-game KIND]]\n";
  return 2;
}

double percentile(std::vector<std::int64_t>& values, double p) {
  if (values.empty()) return 0;
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index),
                   values.end());
  return static_cast<double>(values[index]) / 1000.0;
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    try {
      if (flag == "--url")
        args.url = value();
      else if (flag == "--game")
        args.game = value();
      else if (flag == "--rooms")
        args.rooms = std::stoi(value());
      else if (flag == "--seats")
        args.seats = std::stoi(value());
      else if (flag == "--duration")
        args.duration = std::stod(value());
      else if (flag == "--think-ms")
        args.think_ms = std::stoi(value());
      else if (flag == "--ramp-ms")
        args.ramp_ms = std::stoi(value());
      else if (flag == "--seed")
        args.seed = std::stoull(value());
      else if (flag == "--follow-room-node")
        args.follow_room_node = true;
      else if (flag == "--json")
        args.json = true;
      else if (flag == "--bot-rooms")
        args.bot_rooms = std::stoi(value());
      else if (flag == "--bot-strategy")
        args.bot_strategy = value();
      else if (flag == "--bot-game")
        args.bot_game = value();
      else if (flag == "--help")
        return usage("");
      else
        return usage("unknown flag " + flag);
    } catch (const std::exception& e) {
      return usage(e.what());
    }
  }
  // Bounded by design: at most 20,000 connections and one hour.
  if (args.rooms < 1 || args.seats < 1 || args.rooms * args.seats > 20000 || args.duration <= 0 ||
      args.duration > 3600 || args.bot_rooms < 0 || args.bot_rooms > 1000) {
    return usage("rooms x seats must be 1..20000, bot rooms 0..1000 and duration 0..3600 s");
  }
  if (args.bot_game.empty()) args.bot_game = args.game;
  if (args.url.rfind("ws://", 0) != 0) return usage("--url must start with ws://");
  std::string url_error;
  const auto url = client::parse_ws_url(args.url, url_error);
  if (!url) return usage(url_error);
  LoadSettings settings;
  settings.url = *url;
  settings.think = std::chrono::milliseconds(args.think_ms);
  settings.follow_room_node = args.follow_room_node;

  boost::asio::io_context io(1);
  boost::asio::ip::tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(settings.url.host, settings.url.port);
  LoadStats stats;
  LoadStats bot_stats;  // the bot rooms' own client: not part of the measured rooms' figures
  std::vector<std::shared_ptr<LoadClient>> clients;
  const auto started = Clock::now();
  settings.stop_at = started + std::chrono::milliseconds(args.ramp_ms) +
                     std::chrono::milliseconds(static_cast<long>(args.duration * 1000));
  parlor::Rng seeds(args.seed);

  // The bot rooms first, so their bots are thinking before the measured window opens.
  for (int r = 0; r < args.bot_rooms; ++r) {
    auto plan = std::make_shared<RoomPlan>();
    plan->kind = args.bot_game;
    plan->seats = args.seats;
    plan->bot_strategy = args.bot_strategy;
    auto client = std::make_shared<LoadClient>(io, settings, plan, 0, seeds.next(), bot_stats);
    client->start(endpoints);
    clients.push_back(client);
  }

  // Ramp up: rooms are opened evenly over --ramp-ms so the server's per-IP handshake
  // limit and the listen backlog are not hit all at once.
  boost::asio::steady_timer ramp(io);
  int opened = 0;
  std::function<void()> open_next = [&] {
    const int per_tick = std::max(1, args.rooms * 10 / std::max(1, args.ramp_ms));
    for (int k = 0; k < per_tick && opened < args.rooms; ++k, ++opened) {
      auto plan = std::make_shared<RoomPlan>();
      plan->kind = args.game;
      plan->seats = args.seats;
      for (int s = 0; s < args.seats; ++s) {
        auto client = std::make_shared<LoadClient>(io, settings, plan, s, seeds.next(), stats);
        client->start(endpoints);
        clients.push_back(client);
      }
    }
    if (opened < args.rooms) {
      ramp.expires_after(std::chrono::milliseconds(10));
      ramp.async_wait([&](boost::system::error_code ec) {
        if (!ec) open_next();
      });
    }
  };
  open_next();

  // Measurement starts after the ramp: reset counters then.
  boost::asio::steady_timer measure(io);
  double cpu_at_measure = 0;
  Clock::time_point measure_start = started;
  measure.expires_at(started + std::chrono::milliseconds(args.ramp_ms));
  measure.async_wait([&](boost::system::error_code) {
    stats.moves = 0;
    stats.states = 0;
    stats.latencies_us.clear();
    bot_stats.moves = 0;
    bot_stats.games = 0;
    cpu_at_measure = cpu_seconds();
    measure_start = Clock::now();
  });
  boost::asio::steady_timer stop(io);
  stop.expires_at(settings.stop_at);
  stop.async_wait([&](boost::system::error_code) {
    for (auto& c : clients) c->stop();
    ramp.cancel();
  });
  io.run_until(settings.stop_at + std::chrono::seconds(5));

  const double seconds = std::chrono::duration<double>(settings.stop_at - measure_start).count();
  const double cpu = cpu_seconds() - cpu_at_measure;
  auto& lat = stats.latencies_us;
  const double p50 = percentile(lat, 0.50);
  const double p90 = percentile(lat, 0.90);
  const double p99 = percentile(lat, 0.99);
  const double max =
      lat.empty() ? 0 : static_cast<double>(*std::max_element(lat.begin(), lat.end())) / 1000.0;
  parlor::Json errors = parlor::Json::object();
  std::int64_t error_count = 0;
  for (const auto& [code, count] : stats.errors) {
    errors[code] = count;
    error_count += count;
  }
  for (const auto& [code, count] : bot_stats.errors) {
    errors["bot_rooms_" + code] = count;
    error_count += count;
  }
  parlor::Json report = {
      {"game", args.game},
      {"rooms", args.rooms},
      {"seats", args.seats},
      {"think_ms", args.think_ms},
      {"follow_room_node", args.follow_room_node},
      {"seconds", seconds},
      {"connections", stats.connected},
      {"moves", stats.moves},
      {"moves_per_second", static_cast<double>(stats.moves) / seconds},
      {"states_per_second", static_cast<double>(stats.states) / seconds},
      {"games_finished", stats.games},
      {"latency_ms", {{"p50", p50}, {"p90", p90}, {"p99", p99}, {"max", max}}},
      {"errors", errors},
      {"reconnects", stats.reconnects},
      {"load_cpu_seconds", cpu},
      {"load_cpu_us_per_move", stats.moves ? cpu * 1e6 / static_cast<double>(stats.moves) : 0},
      {"bot_rooms", args.bot_rooms},
      {"bot_strategy", args.bot_rooms ? Json(args.bot_strategy) : Json(nullptr)},
      {"bot_game", args.bot_rooms ? Json(args.bot_game) : Json(nullptr)},
      {"bot_rooms_client_moves", bot_stats.moves},
      {"bot_rooms_games_finished", bot_stats.games}};
  if (args.json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << "parlor-load " << args.game << ": " << args.rooms << " rooms x " << args.seats
              << " seats, think " << args.think_ms << " ms, " << seconds << " s measured\n"
              << "  connections       " << stats.connected << "\n"
              << "  moves/s           " << report["moves_per_second"].get<double>() << "\n"
              << "  state pushes/s    " << report["states_per_second"].get<double>() << "\n"
              << "  games finished    " << stats.games << "\n"
              << "  latency ms        p50 " << p50 << "  p90 " << p90 << "  p99 " << p99 << "  max "
              << max << "\n"
              << "  errors            " << (error_count ? errors.dump() : "none") << "\n"
              << "  bot rooms         " << args.bot_rooms << " (" << args.bot_strategy << " "
              << args.bot_game << "): " << bot_stats.moves << " client moves, " << bot_stats.games
              << " games finished\n"
              << "  parlor-load CPU   " << cpu << " s ("
              << report["load_cpu_us_per_move"].get<double>() << " us/move)\n";
  }
  for (const std::string& hint : stats.hints) std::cerr << "parlor-load: " << hint << "\n";
  return error_count == 0 ? 0 : 1;
}
