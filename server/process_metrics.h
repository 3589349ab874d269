// The standard process_* metrics of Prometheus' client libraries (CPU, memory, file
// descriptors, threads, start time), read from /proc/self at each scrape so that dashboards
// and alerts written for any Prometheus-instrumented process work for parlor-server.
#pragma once

#include <ostream>

namespace parlor::server {

// Writes what /proc allows; a file that cannot be read leaves its metrics out rather than
// reporting a wrong value.
void write_process_metrics(std::ostream& out);

}  // namespace parlor::server
