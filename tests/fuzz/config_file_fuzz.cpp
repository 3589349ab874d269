// Fuzz target: a config file (--config FILE) as parlor-server reads it: the bytes are written
// to a file and parsed by parse_config, which splits its lines (server/config_file.h) and
// hands every value to its flag's setter. The oracle: nothing crashes; a file the line
// splitter refuses is refused by parse_config too, and every refusal says where (the file's
// name, or the key) it is; the lines the splitter accepts have a key without blanks and a
// value without blanks around it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "server/config.h"
#include "server/config_file.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using parlor::fuzz::require;

// The file the input is written to, one per process, removed at exit.
struct ConfigPath {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("parlor-config-fuzz-" + std::to_string(::getpid()) + ".conf"))
                         .string();
  ConfigPath() = default;
  ~ConfigPath() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  ConfigPath(const ConfigPath&) = delete;
  ConfigPath& operator=(const ConfigPath&) = delete;
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ConfigPath file;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the fuzzer's bytes
  const std::string text(reinterpret_cast<const char*>(data), size);

  std::string split_error;
  const auto lines = parlor::server::parse_config_file_text(text, file.path, split_error);
  if (lines) {
    for (const auto& line : *lines) {
      require(!line.key.empty(), "an empty key");
      for (const char c : line.key) require(!blank(c) && c != '\n', "a blank in a key");
      require(line.value.find('\n') == std::string::npos, "a value spans lines");
      require(line.value.empty() || (!blank(line.value.front()) && !blank(line.value.back())),
              "blanks around a value");
    }
  } else {
    require(split_error.starts_with(file.path + ":"), "a refusal without its line: " + split_error);
  }

  std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
  const char* argv[] = {"parlor-server", "--config", file.path.c_str()};
  std::string error;
  bool help = false;
  const auto config = parlor::server::parse_config(3, argv, error, help);
  if (!lines) require(!config.has_value(), "parse_config took a file its lines refuse");
  if (!config) {
    require(!error.empty(), "a config refused without a message");
  } else {
    (void)parlor::server::drain_period(*config);
  }
  return 0;
}
