// parlor-bot's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace parlor::client {

struct BotOptions {
  std::string url = "ws://127.0.0.1:8080/ws";
  std::string name = "bot";
  // Exactly one of these: join room `room` (at `seat`, or the first free one), or create a
  // room of game `create_kind` (with `seats` seats, the game's default when absent).
  std::string room;
  std::optional<int> seat;
  std::string create_kind;
  std::optional<int> seats;
  nlohmann::json room_options = nlohmann::json::object();
  std::string strategy = "random";
  int think_ms = 0;
  std::optional<std::uint64_t> seed;  // random when absent
  bool rematch = false;               // start a rematch after each game but the last
  int games = 1;                      // stop after this many games; 0: until max_seconds
  double max_seconds = 600;
  bool quiet = false;
  std::string token_file;  // where to write this bot's token (mode 0600)
  bool insecure = false;   // wss:// without certificate verification
};

// The options of `argv`, or nullopt with a message in `error` (empty when --help was asked).
std::optional<BotOptions> parse_bot_options(int argc, const char* const* argv, std::string& error);
std::string bot_usage();

}  // namespace parlor::client
