#include "bots/net/bot_options.h"

#include <stdexcept>

namespace parlor::client {

namespace {

// std::stoi and friends accept trailing junk ("12abc"); a flag value must be all number.
template <typename T, typename Parse>
T parse_number(const std::string& flag, const std::string& text, Parse parse) {
  std::size_t used = 0;
  T value{};
  try {
    value = static_cast<T>(parse(text, &used));
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size()) {
    throw std::invalid_argument(flag + " needs a number, not \"" + text + "\"");
  }
  return value;
}

int parse_int(const std::string& flag, const std::string& text, int min, int max) {
  const long value = parse_number<long>(
      flag, text, [](const std::string& s, std::size_t* used) { return std::stol(s, used); });
  if (value < min || value > max) {
    throw std::invalid_argument(flag + " must be " + std::to_string(min) + ".." +
                                std::to_string(max));
  }
  return static_cast<int>(value);
}

void check(const BotOptions& options) {
  if (options.room.empty() == options.create_kind.empty()) {
    throw std::invalid_argument("give either --room ID or --create KIND");
  }
  if (options.seat && options.room.empty()) throw std::invalid_argument("--seat goes with --room");
  if ((options.seats || !options.room_options.empty()) && options.create_kind.empty()) {
    throw std::invalid_argument("--seats and --options go with --create");
  }
  if (!(options.max_seconds > 0 && options.max_seconds <= 86'400)) {
    throw std::invalid_argument("--max-seconds must be more than 0 and at most 86400");
  }
}

}  // namespace

std::string bot_usage() {
  return "usage: parlor-bot [--url ws://HOST:PORT/ws] (--room ID [--seat N] | --create KIND\n"
         "                  [--seats N] [--options JSON]) [--name NAME] [--strategy "
         "random|greedy|ismcts|easy|medium|hard]\n"
         "                  [--think-ms N] [--seed N] [--games N] [--rematch] [--max-seconds S]\n"
         "                  [--token-file PATH] [--insecure] [--quiet]\n";
}

std::optional<BotOptions> parse_bot_options(int argc, const char* const* argv, std::string& error) {
  BotOptions options;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
        return argv[++i];
      };
      if (flag == "--url") {
        options.url = value();
      } else if (flag == "--name") {
        options.name = value();
      } else if (flag == "--room") {
        options.room = value();
      } else if (flag == "--seat") {
        options.seat = parse_int(flag, value(), 0, 15);
      } else if (flag == "--create") {
        options.create_kind = value();
      } else if (flag == "--seats") {
        options.seats = parse_int(flag, value(), 1, 16);
      } else if (flag == "--options") {
        options.room_options = nlohmann::json::parse(value(), nullptr, false);
        if (!options.room_options.is_object()) {
          throw std::invalid_argument("--options needs a JSON object, e.g. '{\"seed\":7}'");
        }
      } else if (flag == "--strategy") {
        options.strategy = value();
      } else if (flag == "--think-ms") {
        options.think_ms = parse_int(flag, value(), 0, 60'000);
      } else if (flag == "--seed") {
        options.seed =
            parse_number<std::uint64_t>(flag, value(), [](const std::string& s, std::size_t* used) {
              if (s.starts_with('-')) throw std::invalid_argument("negative");
              return std::stoull(s, used);
            });
      } else if (flag == "--games") {
        options.games = parse_int(flag, value(), 0, 1'000'000);
      } else if (flag == "--rematch") {
        options.rematch = true;
      } else if (flag == "--max-seconds") {
        options.max_seconds = parse_number<double>(
            flag, value(),
            [](const std::string& s, std::size_t* used) { return std::stod(s, used); });
      } else if (flag == "--token-file") {
        options.token_file = value();
      } else if (flag == "--insecure") {
        options.insecure = true;
      } else if (flag == "--quiet") {
        options.quiet = true;
      } else if (flag == "--help" || flag == "-h") {
        error.clear();
        return std::nullopt;
      } else {
        throw std::invalid_argument("unknown flag " + flag);
      }
    }
    check(options);
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
  return options;
}

}  // namespace parlor::client
