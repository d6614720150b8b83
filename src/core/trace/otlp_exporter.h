// The batch span processor: finished traces wait as span records
// (span_record.h) in a bounded queue, off the request path, and one thread
// builds their spans, encodes and sends them in batches of at most
// max_export_batch_size spans, as soon as that many wait or schedule_delay
// after the first one came. Spans that find the queue full, and batches the
// collector did not take (down, slow, an error), are dropped and counted: a
// request never waits for the collector and never fails because of it.
// After a failed send the collector counts as down for kRetryAfterMs: the
// batches due meanwhile are dropped (and counted) without being encoded.
//
// The queue is a vector whose slots are reused, so queueing a record
// allocates nothing once the queue has grown. Thread-safe.
#ifndef INFERD_CORE_TRACE_OTLP_EXPORTER_H_
#define INFERD_CORE_TRACE_OTLP_EXPORTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inferd/base/mutex.h"
#include "core/timing/clock.h"
#include "core/trace/otlp_http.h"
#include "core/trace/otlp_encoder.h"
#include "core/trace/span_record.h"
#include "core/trace/trace_settings.h"

namespace inferd {

class OtlpExporter {
 public:
  // How long a collector that failed a send is left alone.
  static constexpr uint64_t kRetryAfterMs = 1000;

  // `transport` sends bodies of `encoder`'s content type.
  OtlpExporter(BatchSpanSettings settings, std::unique_ptr<SpanEncoder> encoder,
               std::unique_ptr<SpanTransport> transport, const Clock& clock = Clock::Steady());
  // Sends what is still queued (one try), then stops the thread.
  ~OtlpExporter();
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  // Queues `record`'s spans, or drops them when they do not fit. Never waits
  // for the collector.
  void Export(SpanRecord&& record) EXCLUDES(mu_);
  // Sends everything queued now and returns once it was tried.
  void Flush() EXCLUDES(mu_);

  uint64_t exported() const { return exported_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  // Moves the next batch into `batch` when one is due (or `force`); returns
  // its span count (0: nothing due).
  size_t TakeBatch(bool force, std::vector<SpanRecord>* batch) REQUIRES(mu_);
  void Run() EXCLUDES(mu_);
  void Send(const std::vector<SpanRecord>& batch, size_t spans);

  const BatchSpanSettings settings_;
  const std::unique_ptr<SpanEncoder> encoder_;
  const std::unique_ptr<SpanTransport> transport_;
  const Clock& clock_;
  Mutex mu_;
  CondVar wake_;
  CondVar sent_;
  std::vector<SpanRecord> queue_ GUARDED_BY(mu_);  // waiting from queue_[head_] on
  size_t head_ GUARDED_BY(mu_) = 0;
  size_t queued_spans_ GUARDED_BY(mu_) = 0;
  uint64_t oldest_ns_ GUARDED_BY(mu_) = 0;  // when the oldest queued span came
  uint64_t flush_requested_ GUARDED_BY(mu_) = 0;
  uint64_t flush_done_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  // Only the thread: where batches are encoded (reused) and until when the
  // collector counts as down.
  std::string buffer_;
  uint64_t down_until_ns_ = 0;
  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_EXPORTER_H_
