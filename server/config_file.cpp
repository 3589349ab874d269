#include "server/config_file.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace parlor::server {
namespace {

constexpr std::string_view kBlanks = " \t\r";
// A config file is a few dozen lines; anything this large was named by mistake (a log, a
// device) and would only be read to be refused.
constexpr std::size_t kMaxFileBytes = 1 << 20;

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kBlanks);
  return text.substr(first, last - first + 1);
}

}  // namespace

std::optional<std::vector<ConfigFileLine>> parse_config_file_text(std::string_view text,
                                                                  const std::string& name,
                                                                  std::string& error) {
  // A byte order mark, as some Windows editors write one.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<ConfigFileLine> lines;
  int number = 0;
  while (!text.empty()) {
    ++number;
    const auto end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = name + ":" + std::to_string(number) + ": ";
    if (line.find('\0') != std::string_view::npos) {
      error = where + "a NUL byte (is this a text file?)";
      return std::nullopt;
    }
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      error = where + "expected KEY = VALUE, got \"" + std::string(line.substr(0, 40)) + "\"";
      return std::nullopt;
    }
    const std::string_view key = trim(line.substr(0, eq));
    if (key.empty() || key.find_first_of(kBlanks) != std::string_view::npos) {
      error = where + "expected KEY = VALUE with KEY a flag's name (like max-rooms)";
      return std::nullopt;
    }
    lines.push_back({number, std::string(key), std::string(trim(line.substr(eq + 1)))});
  }
  return lines;
}

std::optional<std::vector<ConfigFileLine>> read_config_file(const std::string& path,
                                                            std::string& error) {
  // A directory opens, and reads as nothing: it would pass for an empty file.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    error = "cannot read config file " + path + ": it is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // Read once at start, before any other thread exists.
    error = "cannot read config file " + path + ": " +
            std::strerror(errno);  // NOLINT(concurrency-mt-unsafe)
    return std::nullopt;
  }
  std::string text;
  std::array<char, 4096> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) {
      error = "config file " + path + " is larger than 1 MiB";
      return std::nullopt;
    }
  }
  if (in.bad()) {
    error = "cannot read config file " + path;
    return std::nullopt;
  }
  return parse_config_file_text(text, path, error);
}

}  // namespace parlor::server
