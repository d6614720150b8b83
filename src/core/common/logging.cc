#include "core/common/logging.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/common/log_sink.h"
#include "inferd/base/mutex.h"

namespace inferd {
namespace {

// The process's logger, created on first use and never replaced: spdlog's
// default-logger pointer is read without a lock by every logging call, so
// changes go to the sink instead.
class ProcessLog {
 public:
  static ProcessLog& Get() {
    static ProcessLog* log = new ProcessLog();  // never destroyed: threads may log at exit
    return *log;
  }

  Status Update(const std::function<StatusOr<LogSettings>(const LogSettings&)>& change,
                LogSettings* applied) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    StatusOr<LogSettings> next = change(settings_);
    if (!next.ok()) return next.status();
    RETURN_IF_ERROR(ApplyLocked(*next));
    if (applied != nullptr) *applied = settings_;
    return Status::Ok();
  }

  LogSettings Current() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return settings_;
  }

 private:
  ProcessLog() : sink_(std::make_shared<LogSink>()) {
    auto logger = std::make_shared<spdlog::logger>("inferd", sink_);
    // The sink and the LOG_* macros filter; the logger lets every line through.
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(std::move(logger));
  }

  Status ApplyLocked(const LogSettings& next) REQUIRES(mu_) {
    std::FILE* file = current_file_;
    if (next.file != settings_.file) {
      file = nullptr;
      if (!next.file.empty()) {
        file = std::fopen(next.file.c_str(), "a");
        if (file == nullptr) {
          return Status::InvalidArg("cannot open log file '" + next.file +
                                    "': " + std::strerror(errno));
        }
      }
    }
    sink_->Apply(file, next.format, next.info, next.warning, next.error);
    current_file_ = file;
    log_internal::verbose_level.store(next.verbose, std::memory_order_relaxed);
    log_internal::info_on.store(next.info, std::memory_order_relaxed);
    log_internal::warning_on.store(next.warning, std::memory_order_relaxed);
    log_internal::error_on.store(next.error, std::memory_order_relaxed);
    settings_ = next;
    return Status::Ok();
  }

  // Constant after construction.
  const std::shared_ptr<LogSink> sink_;

  Mutex mu_;
  LogSettings settings_ GUARDED_BY(mu_);
  std::FILE* current_file_ GUARDED_BY(mu_) = nullptr;  // owned by sink_; null: stderr
};

}  // namespace

std::string_view LogFormatName(LogFormat format) {
  return format == LogFormat::kIso8601 ? "ISO8601" : "default";
}

std::optional<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "default") return LogFormat::kDefault;
  if (name == "ISO8601") return LogFormat::kIso8601;
  return std::nullopt;
}

Status ConfigureLogging(const LogSettings& settings) {
  return UpdateLogging([&](const LogSettings&) { return StatusOr<LogSettings>(settings); },
                       nullptr);
}

Status UpdateLogging(const std::function<StatusOr<LogSettings>(const LogSettings&)>& change,
                     LogSettings* applied) {
  return ProcessLog::Get().Update(change, applied);
}

LogSettings CurrentLogSettings() { return ProcessLog::Get().Current(); }

}  // namespace inferd
