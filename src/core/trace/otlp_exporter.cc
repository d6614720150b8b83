#include "core/trace/otlp_exporter.h"

#include "core/common/logging.h"

namespace inferd {

OtlpExporter::OtlpExporter(BatchSpanSettings settings, ResourceAttributes resource,
                           std::unique_ptr<SpanTransport> transport, const Clock& clock)
    : settings_(settings),
      resource_(std::move(resource)),
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

void OtlpExporter::Export(std::vector<OtelSpan> spans) {
  uint64_t dropped = 0;
  bool wake = false;
  {
    MutexLock lock(&mu_);
    // The thread sleeps without a deadline while nothing waits: the first
    // span wakes it to start the schedule delay; a full batch wakes it too.
    wake = queue_.empty();
    if (wake) oldest_ns_ = clock_.NowNs();
    for (OtelSpan& span : spans) {
      if (queue_.size() >= settings_.max_queue_size) {
        ++dropped;
        continue;
      }
      queue_.push_back(std::move(span));
    }
    wake = wake || queue_.size() >= settings_.max_export_batch_size;
  }
  if (dropped != 0) dropped_.fetch_add(dropped, std::memory_order_relaxed);
  if (wake) wake_.Signal();
}

void OtlpExporter::Flush() {
  MutexLock lock(&mu_);
  const uint64_t ticket = ++flush_requested_;
  wake_.Signal();
  while (flush_done_ < ticket && !stopping_) sent_.Wait(&mu_);
}

std::vector<OtelSpan> OtlpExporter::TakeBatch(bool force) {
  const bool full = queue_.size() >= settings_.max_export_batch_size;
  const bool old = !queue_.empty() &&
                   clock_.NowNs() >= oldest_ns_ + uint64_t{settings_.schedule_delay_ms} * 1000000;
  if (queue_.empty() || !(force || full || old)) return {};
  const size_t count = std::min<size_t>(queue_.size(), settings_.max_export_batch_size);
  std::vector<OtelSpan> batch(std::make_move_iterator(queue_.begin()),
                              std::make_move_iterator(queue_.begin() + count));
  queue_.erase(queue_.begin(), queue_.begin() + count);
  oldest_ns_ = clock_.NowNs();  // what is left waits at most one more delay
  return batch;
}

void OtlpExporter::Run() {
  MutexLock lock(&mu_);
  for (;;) {
    const bool flushing = flush_done_ < flush_requested_;
    std::vector<OtelSpan> batch = TakeBatch(flushing || stopping_);
    if (!batch.empty()) {
      lock.Unlock();
      Send(std::move(batch));
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
        queue_.empty() ? clock_.NowNs() + 1000000000ull * 3600
                       : oldest_ns_ + uint64_t{settings_.schedule_delay_ms} * 1000000;
    clock_.WaitUntil(&wake_, &mu_, deadline);
  }
  sent_.SignalAll();
}

void OtlpExporter::Send(std::vector<OtelSpan> batch) {
  const Status status = transport_->Send(EncodeOtlpJson(resource_, batch));
  if (status.ok()) {
    exported_.fetch_add(batch.size(), std::memory_order_relaxed);
    return;
  }
  // Logged once per failing batch, which schedule_delay spaces out.
  LOG_WARNING("dropped {} spans: {}", batch.size(), status.message());
  dropped_.fetch_add(batch.size(), std::memory_order_relaxed);
}

}  // namespace inferd
