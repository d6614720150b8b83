// The one place log lines are written: a spdlog sink that lays each line out
// as Triton does and writes it to stderr or to an appended file, and the pure
// line-layout function it uses. Thread-safe: every line and every change of
// output, format or enabled levels happens under the sink's mutex, so a line
// goes whole to one output in one format.
#ifndef INFERD_CORE_COMMON_LOG_SINK_H_
#define INFERD_CORE_COMMON_LOG_SINK_H_

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "core/common/logging.h"

namespace inferd {

// What a line says about where it comes from and when.
struct LogLineHeader {
  char level = 'I';  // 'I' (info and verbose), 'W' or 'E'
  std::chrono::system_clock::time_point time;
  long pid = 0;
  std::string_view file;  // a path; only its last component is written. Empty: none
  int line = 0;
};

// Appends one line and its '\n' to `out`:
//   default: I1123 08:10:00.123456 <pid> <file>:<line>] <message>
//   ISO8601: 2026-11-23T08:10:00Z I <pid> <file>:<line>] <message>
// Without a file, "<file>:<line>" is left out ("... <pid>] <message>").
void FormatLogLine(LogFormat format, const LogLineHeader& header, std::string_view message,
                   std::string* out);

// The level letter of a spdlog level: trace, debug and info are 'I', warn
// 'W', err and critical 'E'.
char LogLevelLetter(spdlog::level::level_enum level);

class LogSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  LogSink();
  ~LogSink() override;
  LogSink(const LogSink&) = delete;
  LogSink& operator=(const LogSink&) = delete;

  // Switches output, format and which of info/warning/error lines print
  // (verbose lines are filtered before they reach the sink). `file` is an
  // open file the sink takes ownership of, or null for stderr; the previous
  // file, if any, is closed.
  void Apply(std::FILE* file, LogFormat format, bool info, bool warning, bool error);

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  const long pid_;
  // Guarded by base_sink's mutex_.
  std::FILE* file_ = nullptr;  // owned; null: stderr
  LogFormat format_ = LogFormat::kDefault;
  bool info_ = true;
  bool warning_ = true;
  bool error_ = true;
  std::string line_;  // reused buffer
};

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_LOG_SINK_H_
