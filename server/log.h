// One line per event on stderr, as text (`time level message`) or as a JSON object
// (--log-format json: time, level, message and, where the call site has them, event, room
// and player). Callers pass room and player ids, never tokens, hands, decks or seeds.
#pragma once

#include <string_view>

namespace parlor::server {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
enum class LogFormat { kText, kJson };

// What a line is about, for the JSON format (the text format has it in the message).
// `event`: a short stable name (room_started, engine_failed, ...) to filter on.
struct LogFields {
  std::string_view event{};
  std::string_view room{};
  std::string_view player{};
  // The id of the request the line is about (its `re`), as JSON text: a client that reports
  // a refusal by its request id finds the line.
  std::string_view re{};
};

// Set once at start, before other threads log.
void configure_log(LogFormat format, LogLevel level);

// Whether a line of `level` would be written: a call site that builds a costly message on a
// frequent path asks first.
bool log_enabled(LogLevel level);

void log_debug(std::string_view message, const LogFields& fields = {});
void log_info(std::string_view message, const LogFields& fields = {});
void log_warn(std::string_view message, const LogFields& fields = {});
void log_error(std::string_view message, const LogFields& fields = {});
// Quiet mode for tests that start many servers: only errors are written.
void set_log_quiet(bool quiet);

}  // namespace parlor::server
