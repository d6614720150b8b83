// The traces taken under one version of one trace setting (global or a
// model's): counts what is left of trace_count, buffers finished traces and
// writes them to the trace file, every log_frequency traces, when the count
// runs out, and when the collector is flushed or destroyed (the setting was
// replaced or the server stops). Triton's TraceSetting does the same.
// Thread-safe.
#ifndef INFERD_CORE_TRACE_TRACE_COLLECTOR_H_
#define INFERD_CORE_TRACE_TRACE_COLLECTOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "inferd/base/mutex.h"
#include "core/trace/otlp_exporter.h"
#include "core/trace/trace_file.h"

namespace inferd {

class TraceCollector {
 public:
  // With an `exporter` (opentelemetry mode) finished traces go there as
  // spans, and nothing is written to the file.
  TraceCollector(std::shared_ptr<TraceFile> file, uint32_t log_frequency, int32_t count,
                 std::shared_ptr<OtlpExporter> exporter = nullptr);
  // Flushes what is still buffered.
  ~TraceCollector();
  TraceCollector(const TraceCollector&) = delete;
  TraceCollector& operator=(const TraceCollector&) = delete;

  // Takes one trace from the count; false when none is left. A collector
  // without a count (-1) need not be asked: what is taken matters only to
  // knowing when a count has run out.
  bool Take() EXCLUDES(mu_);
  // One more trace that is not counted against trace_count: a child of a
  // taken one (an ensemble step's), written with it.
  void TakeChild() EXCLUDES(mu_);
  // Traces left to take (-1: no limit).
  int32_t remaining() const EXCLUDES(mu_);

  // A finished trace (one JSON object). Written with the others when
  // log_frequency are buffered, or when the count ran out and every trace
  // taken has finished (to an indexed file either way).
  void Add(const std::string& trace_json) EXCLUDES(mu_);
  // Where spans go in opentelemetry mode; null in triton mode.
  OtlpExporter* exporter() const { return exporter_.get(); }

  // A taken trace that will never be added (its request was refused, or it
  // went to the exporter).
  void Abandon() EXCLUDES(mu_);
  // Writes what is buffered: to an indexed file when log_frequency is set,
  // else appended to the trace file.
  void Flush() EXCLUDES(mu_);

 private:
  // When a write is due, empties the buffer and returns what to write (the
  // caller writes it after releasing mu_); else returns "".
  std::string TakeIfDue() REQUIRES(mu_);

  const std::shared_ptr<TraceFile> file_;
  const uint32_t log_frequency_;
  const std::shared_ptr<OtlpExporter> exporter_;
  mutable Mutex mu_;
  int32_t remaining_ GUARDED_BY(mu_);
  uint64_t taken_ GUARDED_BY(mu_) = 0;
  uint64_t finished_ GUARDED_BY(mu_) = 0;  // added or abandoned
  std::string buffer_ GUARDED_BY(mu_);
  uint32_t buffered_ GUARDED_BY(mu_) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_TRACE_COLLECTOR_H_
