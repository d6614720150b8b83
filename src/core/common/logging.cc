#include "core/common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>

namespace inferd {
namespace {
std::atomic<int> verbose_level{0};
}  // namespace

void ConfigureLogging(const LogSettings& settings) {
  verbose_level.store(settings.verbose, std::memory_order_relaxed);
  static std::shared_ptr<spdlog::logger> stderr_logger = spdlog::stderr_logger_mt("inferd");
  spdlog::set_default_logger(stderr_logger);
  // Triton-like prefix: level letter, date and time, thread id.
  spdlog::set_pattern("%L%m%d %H:%M:%S.%f %t] %v");
  spdlog::level::level_enum level = spdlog::level::off;
  if (settings.error) level = spdlog::level::err;
  if (settings.warning) level = spdlog::level::warn;
  if (settings.info) level = spdlog::level::info;
  if (settings.verbose > 0) level = spdlog::level::debug;
  spdlog::set_level(level);
  spdlog::flush_on(spdlog::level::trace);
}

int LogVerboseLevel() { return verbose_level.load(std::memory_order_relaxed); }

}  // namespace inferd
