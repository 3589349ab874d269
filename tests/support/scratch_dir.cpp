#include "tests/support/scratch_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace parlor::testing {
namespace {

std::mutex trees_mutex;
std::set<std::filesystem::path>& trees() {
  static auto* const made = new std::set<std::filesystem::path>;  // read at exit: never freed
  return *made;
}

// At exit, after RUN_ALL_TESTS: a passing run leaves nothing behind in TMPDIR.
void remove_trees_if_passed() {
  const ::testing::UnitTest* unit = ::testing::UnitTest::GetInstance();
  if (unit == nullptr || !unit->Passed()) return;
  std::lock_guard lock(trees_mutex);
  for (const auto& tree : trees()) {
    std::error_code ignored;
    std::filesystem::remove_all(tree, ignored);
  }
}

}  // namespace

std::filesystem::path scratch_dir(const std::string& program, const std::string& name) {
  const std::filesystem::path tree = std::filesystem::temp_directory_path() /
                                     ("parlor-" + program + "-" + std::to_string(::getpid()));
  {
    std::lock_guard lock(trees_mutex);
    if (trees().empty()) std::atexit(remove_trees_if_passed);
    trees().insert(tree);
  }
  const std::filesystem::path dir = tree / name;
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace parlor::testing
