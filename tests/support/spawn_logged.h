// Starting a test's child process: its stdin from /dev/null, its output in a log file, and
// none of the test's own descriptors (Asio opens sockets without CLOEXEC) inherited.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace parlor::testing {

// Spawns `args` (args[0] is the program's path). Its stderr goes to `log` (created or
// truncated); its stdout too, unless `stdout_fd` is given (the write end of a pipe the caller
// reads). Returns the child's PID, or -1 with `error` saying why not.
pid_t spawn_logged(const std::vector<std::string>& args, const std::filesystem::path& log,
                   std::string& error, int stdout_fd = -1);

}  // namespace parlor::testing
