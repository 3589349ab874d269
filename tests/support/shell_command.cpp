#include "tests/support/shell_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace parlor::testing {

int run_shell(const std::string& command, std::string& output) {
  static std::atomic<int> runs{0};
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() /
      ("parlor-shell-" + std::to_string(::getpid()) + "-" + std::to_string(runs++) + ".txt");
  const std::string redirected = "(" + command + ") > '" + out.string() + "' 2>&1";
  const int status = std::system(redirected.c_str());  // NOLINT(concurrency-mt-unsafe)
  std::ifstream in(out);
  std::ostringstream text;
  text << in.rdbuf();
  output = text.str();
  std::filesystem::remove(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace parlor::testing
