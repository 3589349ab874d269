// At most one log line per interval for one kind of event, saying how many were held back:
// a flood of bad clients (or refused connections) must not become a flood of log lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "server/log.h"

namespace parlor::server {

class LogThrottle {
 public:
  explicit LogThrottle(std::chrono::milliseconds interval = std::chrono::seconds(1))
      : interval_(interval) {}

  // Logs `message` (info) unless a line of this kind went out within the interval; then it
  // is only counted, and the next line that goes out says how many were held back.
  void info(std::string_view message) { write(LogLevel::kInfo, message); }
  // The same at error level.
  void error(std::string_view message) { write(LogLevel::kError, message); }

 private:
  void write(LogLevel level, std::string_view message) {
    const auto now = std::chrono::steady_clock::now();
    std::uint64_t held = 0;
    {
      std::lock_guard lock(mutex_);
      if (now < next_) {
        ++held_;
        return;
      }
      next_ = now + interval_;
      held = held_;
      held_ = 0;
    }
    const auto emit = level == LogLevel::kError ? &log_error : &log_info;
    if (held == 0) return emit(message, {});
    emit(std::string(message) + " (" + std::to_string(held) + " more like it not logged)", {});
  }

  const std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point next_{};
  std::uint64_t held_ = 0;
};

}  // namespace parlor::server
