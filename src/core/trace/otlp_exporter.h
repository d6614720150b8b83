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
// The request path takes no lock: a record comes from a pool of cleared
// ones (a lock-free queue the thread returns them to once sent), is filled
// in place and pushed onto a lock-free queue of pointers (bounded_queue.h);
// only the record that finds the queue empty, or fills a batch, takes the
// lock to wake the thread. Nothing is allocated once the pool has grown to
// what is in flight. Thread-safe.
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
#include "core/trace/bounded_queue.h"
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

  // A cleared record for the caller to fill and hand to Submit (always: it
  // belongs to the exporter).
  SpanRecord* NewRecord();
  // Queues the spans of `record` (from NewRecord), or drops and counts them
  // when they do not fit. Never waits for the collector.
  void Submit(SpanRecord* record) EXCLUDES(mu_);
  // NewRecord, `record` moved into it, Submit.
  void Export(SpanRecord&& record) EXCLUDES(mu_);
  // Sends everything queued now and returns once it was tried.
  void Flush() EXCLUDES(mu_);

  uint64_t exported() const { return exported_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  // kNow: send what is queued (the delay is over, or `force`); kFull: a
  // batch's worth of spans is queued.
  enum class Due { kNo, kFull, kNow };
  Due CheckDue(bool force) REQUIRES(mu_);
  // Pops records into batch_ up to a batch; returns the spans it holds
  // (fewer while counted records are still being pushed).
  size_t TakeBatch();
  // Sleeps until a push in progress finishes (or a stop).
  void AwaitPush() REQUIRES(mu_);
  void Run() EXCLUDES(mu_);
  void Send(size_t spans);
  // Back to the pool (or freed when the pool is full).
  void Recycle(SpanRecord* record);

  const BatchSpanSettings settings_;
  const std::unique_ptr<SpanEncoder> encoder_;
  const std::unique_ptr<SpanTransport> transport_;
  const Clock& clock_;
  BoundedQueue<SpanRecord> queue_;  // submitted, oldest first
  BoundedQueue<SpanRecord> pool_;   // cleared, for NewRecord
  // Spans queued and not yet being sent (bsp_max_queue_size's).
  std::atomic<size_t> queued_spans_{0};
  // The thread waits for a push in progress (AwaitPush).
  std::atomic<bool> awaiting_push_{false};
  Mutex mu_;
  CondVar wake_;
  CondVar sent_;
  uint64_t oldest_ns_ GUARDED_BY(mu_) = 0;  // when the oldest queued span came
  uint64_t flush_requested_ GUARDED_BY(mu_) = 0;
  uint64_t flush_done_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  // Only the thread: the batch being sent, a popped record that did not fit
  // in it, where batches are encoded (reused) and until when the collector
  // counts as down.
  std::vector<SpanRecord*> batch_;
  size_t staged_spans_ = 0;  // batch_'s
  SpanRecord* carried_ = nullptr;
  std::string buffer_;
  uint64_t down_until_ns_ = 0;
  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_EXPORTER_H_
