// Runs a shell command from a test (promtool, the deploy scripts, a server that must refuse
// to start) and hands back what it printed.
#pragma once

#include <string>

namespace parlor::testing {

// Runs `command` with /bin/sh, its stdout and stderr together in `output`. Returns its exit
// status, or -1 when it did not exit (a signal).
int run_shell(const std::string& command, std::string& output);

}  // namespace parlor::testing
