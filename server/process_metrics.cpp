#include "server/process_metrics.h"

#include "server/histogram.h"

#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace parlor::server {
namespace {

// The fields of /proc/self/stat after the command name (which may hold spaces and
// parentheses, so the split starts after its last ')'). fields[0] is field 3, `state`.
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// The boot time in seconds since the epoch (/proc/stat `btime`), or 0.
double boot_time() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("btime ", 0) == 0) return std::strtod(line.c_str() + 6, nullptr);
  }
  return 0;
}

void gauge(std::ostream& out, const char* name, const char* type, const char* help, double value) {
  std::array<char, 32> buffer{};
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n'
      << name << ' ' << shortest_number(value, buffer) << '\n';
}

}  // namespace

void write_process_metrics(std::ostream& out) {
  const std::vector<std::string> fields = stat_fields();
  // proc(5) numbers the fields from 1; fields[0] is field 3.
  // The kernel writes them as decimal numbers; strtod never throws while a scrape is served.
  const auto field = [&](std::size_t number) {
    return std::strtod(fields[number - 3].c_str(), nullptr);
  };
  // Both are constant for the life of the process.
  const auto ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto page = static_cast<double>(sysconf(_SC_PAGESIZE));
  if (fields.size() >= 22 && ticks > 0) {
    gauge(out, "process_cpu_seconds_total", "counter",
          "User and system CPU time spent, in seconds.", (field(14) + field(15)) / ticks);
    gauge(out, "process_threads", "gauge", "Threads of the process.", field(20));
    gauge(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size, in bytes.",
          field(23));
    gauge(out, "process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.",
          field(24) * page);
    if (const double boot = boot_time(); boot > 0) {
      gauge(out, "process_start_time_seconds", "gauge",
            "Start time of the process since the Unix epoch, in seconds.",
            boot + field(22) / ticks);
    }
  }
  std::error_code error;
  std::size_t open_fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++open_fds;
  }
  if (!error) {
    // The directory's own descriptor, open while it is listed, is not the server's.
    gauge(out, "process_open_fds", "gauge", "Open file descriptors.",
          static_cast<double>(open_fds > 0 ? open_fds - 1 : 0));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    gauge(out, "process_max_fds", "gauge", "Limit of open file descriptors.",
          static_cast<double>(limit.rlim_cur));
  }
}

}  // namespace parlor::server
