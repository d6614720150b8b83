// The batch span processor: finished spans wait in a bounded queue, off the
// request path, and one thread sends them in batches of at most
// max_export_batch_size, as soon as that many wait or schedule_delay after
// the first one came. Spans that find the queue full, and batches the
// collector did not take (down, slow, an error), are dropped and counted:
// a request never waits for the collector and never fails because of it.
// Thread-safe.
#ifndef INFERD_CORE_TRACE_OTLP_EXPORTER_H_
#define INFERD_CORE_TRACE_OTLP_EXPORTER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "inferd/base/mutex.h"
#include "core/timing/clock.h"
#include "core/trace/otel_span.h"
#include "core/trace/otlp_http.h"
#include "core/trace/otlp_json.h"
#include "core/trace/trace_settings.h"

namespace inferd {

class OtlpExporter {
 public:
  OtlpExporter(BatchSpanSettings settings, ResourceAttributes resource,
               std::unique_ptr<SpanTransport> transport, const Clock& clock = Clock::Steady());
  // Sends what is still queued (one try), then stops the thread.
  ~OtlpExporter();
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  // Queues `spans`; those that do not fit are dropped. Never waits for the
  // collector.
  void Export(std::vector<OtelSpan> spans) EXCLUDES(mu_);
  // Sends everything queued now and returns once it was tried.
  void Flush() EXCLUDES(mu_);

  uint64_t exported() const { return exported_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  void Run() EXCLUDES(mu_);
  // Takes the next batch when one is due (or `force`), else nothing.
  std::vector<OtelSpan> TakeBatch(bool force) REQUIRES(mu_);
  void Send(std::vector<OtelSpan> batch);

  const BatchSpanSettings settings_;
  const ResourceAttributes resource_;
  const std::unique_ptr<SpanTransport> transport_;
  const Clock& clock_;
  Mutex mu_;
  CondVar wake_;
  CondVar sent_;
  std::deque<OtelSpan> queue_ GUARDED_BY(mu_);
  uint64_t oldest_ns_ GUARDED_BY(mu_) = 0;  // when the oldest queued span came
  uint64_t flush_requested_ GUARDED_BY(mu_) = 0;
  uint64_t flush_done_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_EXPORTER_H_
