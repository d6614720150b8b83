// Logging for the whole process: spdlog underneath, Triton's settings on top
// (--log-verbose=N, --log-info/--log-warning/--log-error=bool, --log-file,
// --log-format), changeable while the server runs (the logging extension).
//
// Lines are written by one LogSink (log_sink.h) behind spdlog's default logger,
// in Triton's layout: "I1123 08:10:00.123456 <pid> <file>:<line>] <message>".
// A disabled line costs one relaxed atomic load. Thread-safe.
#ifndef INFERD_CORE_COMMON_LOGGING_H_
#define INFERD_CORE_COMMON_LOGGING_H_

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// How a line starts: Triton's "default" (I1123 08:10:00.123456 ...) or
// "ISO8601" (2026-11-23T08:10:00Z I ...). Times are UTC.
enum class LogFormat { kDefault, kIso8601 };

// "default" or "ISO8601", the names the flag and the logging extension use.
std::string_view LogFormatName(LogFormat format);
// The format named `name` (exact spelling), or nullopt.
std::optional<LogFormat> ParseLogFormat(std::string_view name);

struct LogSettings {
  std::string file;  // appended to; empty: stderr
  bool info = true;
  bool warning = true;
  bool error = true;
  uint32_t verbose = 0;  // verbose lines print when their level <= this
  LogFormat format = LogFormat::kDefault;

  bool operator==(const LogSettings&) const = default;
};

// Replaces the process's log settings. A new `file` is opened (appending)
// before anything changes: when it cannot be opened, returns INVALID_ARG
// naming it and the old settings stay. Every line is written whole to either
// the old or the new output.
Status ConfigureLogging(const LogSettings& settings);

// Computes new settings from the current ones and applies them as one step:
// concurrent updates do not lose each other's changes. When `change` fails,
// or the result cannot be applied, nothing changes. On success `*applied`
// (may be null) holds the settings now in force.
Status UpdateLogging(const std::function<StatusOr<LogSettings>(const LogSettings&)>& change,
                     LogSettings* applied);

// The settings in force.
LogSettings CurrentLogSettings();

namespace log_internal {
// Mirrors of the settings read on every logging call; written only by
// ConfigureLogging / UpdateLogging.
inline std::atomic<uint32_t> verbose_level{0};
inline std::atomic<bool> info_on{true};
inline std::atomic<bool> warning_on{true};
inline std::atomic<bool> error_on{true};
}  // namespace log_internal

// The verbose level in force; verbose lines print when their level <= this.
inline uint32_t LogVerboseLevel() {
  return log_internal::verbose_level.load(std::memory_order_relaxed);
}

}  // namespace inferd

// Each macro formats its arguments only when its level prints. The source
// location travels with the line.
#define INFERD_LOG_IF(on, spdlog_level, ...)                                                \
  do {                                                                                      \
    if (on) SPDLOG_LOGGER_CALL(::spdlog::default_logger_raw(), spdlog_level, __VA_ARGS__);  \
  } while (0)
#define LOG_INFO(...)                                                                           \
  INFERD_LOG_IF(::inferd::log_internal::info_on.load(std::memory_order_relaxed),               \
                ::spdlog::level::info, __VA_ARGS__)
#define LOG_WARNING(...)                                                                        \
  INFERD_LOG_IF(::inferd::log_internal::warning_on.load(std::memory_order_relaxed),            \
                ::spdlog::level::warn, __VA_ARGS__)
#define LOG_ERROR(...)                                                                          \
  INFERD_LOG_IF(::inferd::log_internal::error_on.load(std::memory_order_relaxed),              \
                ::spdlog::level::err, __VA_ARGS__)
// Verbose lines print as info lines (as Triton's do), whether or not info is on.
#define LOG_VERBOSE(verbosity, ...)                                                             \
  INFERD_LOG_IF(::inferd::LogVerboseLevel() >= static_cast<uint32_t>(verbosity),              \
                ::spdlog::level::debug, __VA_ARGS__)

#endif  // INFERD_CORE_COMMON_LOGGING_H_
