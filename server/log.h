// One-line structured logs on stderr: `time level message`. Callers pass room and
// player ids, never tokens, hands or seeds.
#pragma once

#include <string_view>

namespace parlor::server {

void log_info(std::string_view message);
void log_error(std::string_view message);
// Quiet mode for tests that start many servers.
void set_log_quiet(bool quiet);

}  // namespace parlor::server
