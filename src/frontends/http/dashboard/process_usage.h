// This process's CPU time and resident memory, for the dashboard's server
// panel: read from /proc/self/stat, the kernel's own accounting of the
// process the frontend runs in. The parsing is a pure function. Thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_DASHBOARD_PROCESS_USAGE_H_
#define INFERD_FRONTENDS_HTTP_DASHBOARD_PROCESS_USAGE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace inferd::http {

struct ProcessUsage {
  double cpu_seconds = 0;       // user + system time of every thread so far
  uint64_t resident_bytes = 0;  // resident set size
};

// Parses /proc/<pid>/stat's text (utime and stime in `ticks_per_second`, rss
// in pages of `page_bytes`); nullopt when it is not such a line.
std::optional<ProcessUsage> ParseProcStatLine(std::string_view text, long ticks_per_second,
                                              long page_bytes);

// This process's usage now; nullopt when /proc cannot be read.
std::optional<ProcessUsage> ReadProcessUsage();

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_DASHBOARD_PROCESS_USAGE_H_
