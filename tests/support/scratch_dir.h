// Temporary directories for tests that start real processes: one tree per test program and
// process id, so that parallel test processes never share a data directory or a log. The tree
// is removed when the process exits after its tests passed, and kept (its logs, its data) when
// one failed.
#pragma once

#include <filesystem>
#include <string>

namespace parlor::testing {

// TMPDIR/parlor-PROGRAM-PID/NAME, created (with its parents) if missing.
std::filesystem::path scratch_dir(const std::string& program, const std::string& name);

}  // namespace parlor::testing
