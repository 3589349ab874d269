#include "server/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace parlor::server {
namespace {

std::atomic<bool> quiet{false};
std::mutex output_mutex;

void write(const char* level, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  std::lock_guard lock(output_mutex);
  std::fprintf(stderr, "%s.%03dZ %s %.*s\n", stamp, static_cast<int>(millis), level,
               static_cast<int>(message.size()), message.data());
}

}  // namespace

void log_info(std::string_view message) {
  if (!quiet.load(std::memory_order_relaxed)) write("info", message);
}

void log_error(std::string_view message) { write("error", message); }

void set_log_quiet(bool value) { quiet.store(value); }

}  // namespace parlor::server
