#include "tests/support/scratch_dir.h"

#include <unistd.h>

namespace parlor::testing {

std::filesystem::path scratch_dir(const std::string& program, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("parlor-" + program + "-" + std::to_string(::getpid())) / name;
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace parlor::testing
