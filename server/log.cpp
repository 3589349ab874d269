#include "server/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace parlor::server {
namespace {

std::atomic<bool> quiet{false};
std::atomic<LogLevel> threshold{LogLevel::kInfo};
std::atomic<LogFormat> format{LogFormat::kText};
std::mutex output_mutex;

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "error";
}

// UTC with milliseconds, RFC 3339: 2026-11-26T13:45:00.123Z.
std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char stamp[32];
  const std::size_t length = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[40];
  std::snprintf(out, sizeof out, "%.*s.%03dZ", static_cast<int>(length), stamp,
                static_cast<int>(millis));
  return out;
}

std::string json_line(const std::string& time, LogLevel level, std::string_view message,
                      const LogFields& fields) {
  // Ordered: time, level and message lead every line, as a reader scans them.
  nlohmann::ordered_json line = {
      {"time", time}, {"level", level_name(level)}, {"message", std::string(message)}};
  if (!fields.event.empty()) line["event"] = std::string(fields.event);
  if (!fields.room.empty()) line["room"] = std::string(fields.room);
  if (!fields.player.empty()) line["player"] = std::string(fields.player);
  if (!fields.re.empty()) {
    // The request's own id, as the client sent it (the decoder allows strings and integers).
    auto re = nlohmann::ordered_json::parse(fields.re, nullptr, /*allow_exceptions=*/false);
    line["re"] = re.is_discarded() ? nlohmann::ordered_json(std::string(fields.re)) : re;
  }
  // A message may quote a client's bytes: invalid UTF-8 is replaced, never a reason to throw.
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void write(LogLevel level, std::string_view message, const LogFields& fields) {
  if (!log_enabled(level)) return;
  const std::string time = timestamp();
  const std::string line = format.load(std::memory_order_relaxed) == LogFormat::kJson
                               ? json_line(time, level, message, fields)
                               : time + ' ' + level_name(level) + ' ' + std::string(message);
  std::lock_guard lock(output_mutex);
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

bool log_enabled(LogLevel level) {
  if (level < threshold.load(std::memory_order_relaxed)) return false;
  return level == LogLevel::kError || !quiet.load(std::memory_order_relaxed);
}

void configure_log(LogFormat log_format, LogLevel level) {
  format.store(log_format);
  threshold.store(level);
}

void log_debug(std::string_view message, const LogFields& fields) {
  write(LogLevel::kDebug, message, fields);
}
void log_info(std::string_view message, const LogFields& fields) {
  write(LogLevel::kInfo, message, fields);
}
void log_warn(std::string_view message, const LogFields& fields) {
  write(LogLevel::kWarn, message, fields);
}
void log_error(std::string_view message, const LogFields& fields) {
  write(LogLevel::kError, message, fields);
}

void set_log_quiet(bool value) { quiet.store(value); }

}  // namespace parlor::server
