// Where traces are written: a trace file and its indexed siblings. Triton's
// layout: with log_frequency 0 every trace goes to <file> (written when the
// traces are flushed, at shutdown or when their settings are replaced); else
// each group of traces goes to <file>.<index>, the index counting from 0.
// Each file holds one JSON array of trace objects. Thread-safe.
#ifndef INFERD_CORE_TRACE_TRACE_FILE_H_
#define INFERD_CORE_TRACE_TRACE_FILE_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "inferd/base/mutex.h"

namespace inferd {

class TraceFile {
 public:
  explicit TraceFile(std::string path) : path_(std::move(path)) {}
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  const std::string& path() const { return path_; }

  // Writes `traces` (JSON objects separated by commas) as the array of the
  // next indexed file, <path>.<index>.
  void WriteIndexed(const std::string& traces) EXCLUDES(mu_);
  // Adds `traces` to the array in <path>. The file is truncated at its first
  // write and is a complete JSON array after every call.
  void Append(const std::string& traces) EXCLUDES(mu_);

 private:
  const std::string path_;
  Mutex mu_;
  uint64_t next_index_ GUARDED_BY(mu_) = 0;
  std::FILE* main_ GUARDED_BY(mu_) = nullptr;
  bool main_has_traces_ GUARDED_BY(mu_) = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_TRACE_FILE_H_
