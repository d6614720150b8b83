#include "http/dashboard/process_usage.h"

#include <unistd.h>

#include <array>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace inferd::http {

std::optional<ProcessUsage> ParseProcStatLine(std::string_view text, long ticks_per_second,
                                              long page_bytes) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the
  // fields are counted from the last ')'. After it, field 3 (state) comes
  // first; utime is field 14, stime 15, rss 24.
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos || ticks_per_second <= 0 || page_bytes <= 0) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(close + 1);
  std::array<uint64_t, 25> fields{};
  for (int field = 3; field <= 24; ++field) {
    const size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(start);
    const size_t end = std::min(rest.find(' '), rest.size());
    if (field == 14 || field == 15 || field == 24) {  // others may be negative (nice)
      const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + end, fields[field]);
      if (ec != std::errc() || ptr != rest.data() + end) return std::nullopt;
    }
    rest.remove_prefix(end);
  }
  ProcessUsage usage;
  usage.cpu_seconds = static_cast<double>(fields[14] + fields[15]) /
                      static_cast<double>(ticks_per_second);
  usage.resident_bytes = fields[24] * static_cast<uint64_t>(page_bytes);
  return usage;
}

std::optional<ProcessUsage> ReadProcessUsage() {
  std::ifstream file("/proc/self/stat");
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return ParseProcStatLine(text.str(), sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
}

}  // namespace inferd::http
