#include "core/trace/otlp_exporter.h"

#include "core/common/logging.h"
#include "core/trace/otel_spans.h"

namespace inferd {

OtlpExporter::OtlpExporter(BatchSpanSettings settings, std::unique_ptr<SpanEncoder> encoder,
                           std::unique_ptr<SpanTransport> transport, const Clock& clock)
    : settings_(settings),
      encoder_(std::move(encoder)),
      transport_(std::move(transport)),
      clock_(clock),
      thread_([this] { Run(); }) {}

OtlpExporter::~OtlpExporter() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  thread_.join();
}

void OtlpExporter::Export(SpanRecord&& record) {
  const size_t spans = SpanCount(record);
  if (spans == 0) return;
  bool wake = false;
  {
    MutexLock lock(&mu_);
    if (queued_spans_ + spans > settings_.max_queue_size) {
      lock.Unlock();
      dropped_.fetch_add(spans, std::memory_order_relaxed);
      return;
    }
    // The thread sleeps without a deadline while nothing waits: the first
    // span wakes it to start the schedule delay; a full batch wakes it too.
    wake = queued_spans_ == 0;
    if (wake) oldest_ns_ = clock_.NowNs();
    queue_.push_back(std::move(record));
    queued_spans_ += spans;
    wake = wake || queued_spans_ >= settings_.max_export_batch_size;
  }
  if (wake) wake_.Signal();
}

void OtlpExporter::Flush() {
  MutexLock lock(&mu_);
  const uint64_t ticket = ++flush_requested_;
  wake_.Signal();
  while (flush_done_ < ticket && !stopping_) sent_.Wait(&mu_);
}

size_t OtlpExporter::TakeBatch(bool force, std::vector<SpanRecord>* batch) {
  const bool full = queued_spans_ >= settings_.max_export_batch_size;
  const bool old = queued_spans_ > 0 &&
                   clock_.NowNs() >= oldest_ns_ + uint64_t{settings_.schedule_delay_ms} * 1000000;
  if (queued_spans_ == 0 || !(force || full || old)) return 0;
  size_t spans = 0;
  while (head_ < queue_.size()) {
    const size_t next = SpanCount(queue_[head_]);
    // A record's spans stay together, even when they alone exceed the limit.
    if (spans > 0 && spans + next > settings_.max_export_batch_size) break;
    spans += next;
    batch->push_back(std::move(queue_[head_++]));
  }
  queued_spans_ -= spans;
  if (head_ == queue_.size()) {
    queue_.clear();  // keeps its capacity: the slots are reused
    head_ = 0;
  } else if (head_ >= queue_.size() / 2) {
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(head_));
    head_ = 0;
  }
  oldest_ns_ = clock_.NowNs();  // what is left waits at most one more delay
  return spans;
}

void OtlpExporter::Run() {
  std::vector<SpanRecord> batch;
  MutexLock lock(&mu_);
  for (;;) {
    const bool flushing = flush_done_ < flush_requested_;
    const size_t spans = TakeBatch(flushing || stopping_, &batch);
    if (spans > 0) {
      lock.Unlock();
      Send(batch, spans);
      batch.clear();  // the strings moved in are freed here, off the request path
      lock.Lock();
      continue;
    }
    if (flushing) {
      flush_done_ = flush_requested_;
      sent_.SignalAll();
      continue;
    }
    if (stopping_) break;
    const uint64_t deadline =
        queued_spans_ == 0 ? clock_.NowNs() + 1000000000ull * 3600
                           : oldest_ns_ + uint64_t{settings_.schedule_delay_ms} * 1000000;
    clock_.WaitUntil(&wake_, &mu_, deadline);
  }
  sent_.SignalAll();
}

void OtlpExporter::Send(const std::vector<SpanRecord>& batch, size_t spans) {
  const uint64_t now = clock_.NowNs();
  if (now < down_until_ns_) {
    dropped_.fetch_add(spans, std::memory_order_relaxed);  // not even encoded
    return;
  }
  size_t encoded = 0;
  const Status status = transport_->Send(
      encoder_->Encode(batch.data(), batch.size(), UnixMinusSteadyNs(), &buffer_, &encoded));
  if (status.ok()) {
    exported_.fetch_add(spans, std::memory_order_relaxed);
    return;
  }
  down_until_ns_ = clock_.NowNs() + kRetryAfterMs * 1000000;
  // Logged once per failing try, which kRetryAfterMs spaces out.
  LOG_WARNING("dropped {} spans; the next {} ms of spans are dropped too: {}", spans,
              kRetryAfterMs, status.message());
  dropped_.fetch_add(spans, std::memory_order_relaxed);
}

}  // namespace inferd
