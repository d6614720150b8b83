// Logging for the whole process: spdlog underneath, Triton's flags on top
// (--log-verbose=N, --log-info/--log-warning/--log-error=bool). Thread-safe.
#ifndef INFERD_CORE_COMMON_LOGGING_H_
#define INFERD_CORE_COMMON_LOGGING_H_

#include <spdlog/spdlog.h>

#include <atomic>

namespace inferd {

struct LogSettings {
  int verbose = 0;
  bool info = true;
  bool warning = true;
  bool error = true;
};

// Applies `settings` to the process-wide logger (stderr).
void ConfigureLogging(const LogSettings& settings);

// The --log-verbose level; verbose lines print when their level <= this.
int LogVerboseLevel();

}  // namespace inferd

#define LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define LOG_WARNING(...) ::spdlog::warn(__VA_ARGS__)
#define LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)
#define LOG_VERBOSE(level, ...) \
  do {                                                                   \
    if (::inferd::LogVerboseLevel() >= (level)) ::spdlog::debug(__VA_ARGS__); \
  } while (0)

#endif  // INFERD_CORE_COMMON_LOGGING_H_
