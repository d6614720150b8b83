#include "core/common/log_sink.h"

#include <time.h>
#include <unistd.h>

#include <iterator>
#include <spdlog/fmt/fmt.h>

namespace inferd {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

void FormatLogLine(LogFormat format, const LogLineHeader& header, std::string_view message,
                   std::string* out) {
  using std::chrono::duration_cast;
  const auto since_epoch = header.time.time_since_epoch();
  const auto seconds = duration_cast<std::chrono::seconds>(since_epoch);
  const long micros =
      static_cast<long>(duration_cast<std::chrono::microseconds>(since_epoch - seconds).count());
  const time_t whole = static_cast<time_t>(seconds.count());
  struct tm utc {};
  gmtime_r(&whole, &utc);

  auto it = std::back_inserter(*out);
  if (format == LogFormat::kIso8601) {
    it = fmt::format_to(it, "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z {} {}", utc.tm_year + 1900,
                        utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                        header.level, header.pid);
  } else {
    it = fmt::format_to(it, "{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {}", header.level,
                        utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, micros,
                        header.pid);
  }
  if (!header.file.empty()) {
    it = fmt::format_to(it, " {}:{}", BaseName(header.file), header.line);
  }
  out->append("] ");
  out->append(message);
  out->push_back('\n');
}

char LogLevelLetter(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::warn: return 'W';
    case spdlog::level::err:
    case spdlog::level::critical: return 'E';
    default: return 'I';
  }
}

LogSink::LogSink() : pid_(static_cast<long>(getpid())) {}

LogSink::~LogSink() {
  if (file_ != nullptr) std::fclose(file_);
}

void LogSink::Apply(std::FILE* file, LogFormat format, bool info, bool warning, bool error) {
  std::FILE* old = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (file != file_) {
      old = file_;
      file_ = file;
    }
    format_ = format;
    info_ = info;
    warning_ = warning;
    error_ = error;
  }
  // Every write to `old` happened under the lock above.
  if (old != nullptr) std::fclose(old);
}

void LogSink::sink_it_(const spdlog::details::log_msg& msg) {
  switch (msg.level) {
    case spdlog::level::info:
      if (!info_) return;
      break;
    case spdlog::level::warn:
      if (!warning_) return;
      break;
    case spdlog::level::err:
    case spdlog::level::critical:
      if (!error_) return;
      break;
    default:  // verbose lines were filtered by their level already
      break;
  }
  LogLineHeader header;
  header.level = LogLevelLetter(msg.level);
  header.time = msg.time;
  header.pid = pid_;
  if (!msg.source.empty()) {
    header.file = msg.source.filename;
    header.line = msg.source.line;
  }
  line_.clear();
  FormatLogLine(format_, header, std::string_view(msg.payload.data(), msg.payload.size()), &line_);
  std::FILE* out = file_ != nullptr ? file_ : stderr;
  std::fwrite(line_.data(), 1, line_.size(), out);
  std::fflush(out);
}

void LogSink::flush_() { std::fflush(file_ != nullptr ? file_ : stderr); }

}  // namespace inferd
