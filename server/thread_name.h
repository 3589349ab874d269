#pragma once
// Names the calling thread, so that `top -H`, `ps -L`, perf and gdb show which of the server's
// threads is which (I/O, the store's writer, cluster mode's loops) and a benchmark can measure
// or pin one of them (tests/bench/server_load.sh). Linux keeps 15 bytes of a name; a longer one
// is cut, never refused.
#include <pthread.h>

#include <string>
#include <string_view>

namespace parlor::server {

inline void name_this_thread(std::string_view name) {
  constexpr std::size_t kLinuxLimit = 15;
  const std::string kept(name.substr(0, kLinuxLimit));
  pthread_setname_np(pthread_self(), kept.c_str());
}

}  // namespace parlor::server
