#include "core/trace/otlp_exporter.h"

#include <utility>

#include "core/common/logging.h"
#include "core/trace/otel_spans.h"

namespace inferd {

OtlpExporter::OtlpExporter(BatchSpanSettings settings, std::unique_ptr<SpanEncoder> encoder,
                           std::unique_ptr<SpanTransport> transport, const Clock& clock)
    : settings_(settings),
      encoder_(std::move(encoder)),
      transport_(std::move(transport)),
      clock_(clock),
      queue_(settings.max_queue_size),
      pool_(settings.max_queue_size),
      thread_([this] { Run(); }) {}

OtlpExporter::~OtlpExporter() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  thread_.join();
  delete carried_;
  while (SpanRecord* record = queue_.Pop()) delete record;
  while (SpanRecord* record = pool_.Pop()) delete record;
}

SpanRecord* OtlpExporter::NewRecord() {
  SpanRecord* record = pool_.Pop();
  return record != nullptr ? record : new SpanRecord();
}

void OtlpExporter::Recycle(SpanRecord* record) {
  record->Clear();
  if (!pool_.Push(record)) delete record;
}

void OtlpExporter::Export(SpanRecord&& record) {
  SpanRecord* queued = NewRecord();
  *queued = std::move(record);
  Submit(queued);
}

void OtlpExporter::Submit(SpanRecord* record) {
  record->slots = SpanSlots(*record);
  const auto spans = SlotCount(record->slots);
  if (spans == 0) return Recycle(record);
  const size_t before = queued_spans_.fetch_add(spans, std::memory_order_relaxed);
  if (before + spans > settings_.max_queue_size || !queue_.Push(record)) {
    queued_spans_.fetch_sub(spans, std::memory_order_relaxed);
    dropped_.fetch_add(spans, std::memory_order_relaxed);
    return Recycle(record);
  }
  // The thread sleeps without a deadline while nothing waits: the first
  // span wakes it to start the schedule delay; a full batch wakes it too,
  // and so does any push while it waits for one to finish.
  const size_t batch = settings_.max_export_batch_size;
  const bool first = before == 0;
  bool wake = first || (before < batch && before + spans >= batch);
  if (!wake) {
    // Pairs with AwaitPush's fence: either it sees the push, or this sees it wait.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    wake = awaiting_push_.load(std::memory_order_relaxed);
  }
  if (!wake) return;
  {
    MutexLock lock(&mu_);
    if (first) oldest_ns_ = clock_.NowNs();
  }
  wake_.Signal();
}

void OtlpExporter::Flush() {
  MutexLock lock(&mu_);
  const uint64_t ticket = ++flush_requested_;
  wake_.Signal();
  while (flush_done_ < ticket && !stopping_) sent_.Wait(&mu_);
}

OtlpExporter::Due OtlpExporter::CheckDue(bool force) {
  const size_t queued = queued_spans_.load(std::memory_order_relaxed);
  if (queued == 0) return Due::kNo;
  if (force || clock_.NowNs() >= oldest_ns_ + uint64_t{settings_.schedule_delay_ms} * 1000000) {
    return Due::kNow;
  }
  return queued >= settings_.max_export_batch_size ? Due::kFull : Due::kNo;
}

size_t OtlpExporter::TakeBatch() {
  while (staged_spans_ < settings_.max_export_batch_size) {
    SpanRecord* record = carried_ != nullptr ? std::exchange(carried_, nullptr) : queue_.Pop();
    if (record == nullptr) break;
    const auto count = SlotCount(record->slots);
    // A record's spans stay together, even when they alone exceed the limit.
    if (staged_spans_ > 0 && staged_spans_ + count > settings_.max_export_batch_size) {
      carried_ = record;
      break;
    }
    staged_spans_ += count;
    batch_.push_back(record);
  }
  return staged_spans_;
}

void OtlpExporter::AwaitPush() {
  awaiting_push_.store(true, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (carried_ == nullptr) carried_ = queue_.Pop();
  if (carried_ == nullptr) wake_.Wait(&mu_);
  awaiting_push_.store(false, std::memory_order_relaxed);
}

void OtlpExporter::Run() {
  MutexLock lock(&mu_);
  for (;;) {
    const bool flushing = flush_done_ < flush_requested_;
    const Due due = CheckDue(flushing || stopping_);
    if (due != Due::kNo) {
      // Read before sending, as a test's simulated clock may move meanwhile.
      const uint64_t taken_ns = clock_.NowNs();
      lock.Unlock();
      const size_t spans = TakeBatch();
      // Counted spans whose records are still being pushed complete a batch
      // due for being full; one due now goes with what is there.
      const bool ready = spans > 0 && (due == Due::kNow || carried_ != nullptr ||
                                       spans >= settings_.max_export_batch_size);
      if (ready) Send(spans);
      lock.Lock();
      if (ready) {
        oldest_ns_ = taken_ns;  // what is left waits at most one more delay
      } else {
        AwaitPush();
      }
      continue;
    }
    if (flushing) {
      flush_done_ = flush_requested_;
      sent_.SignalAll();
      continue;
    }
    if (stopping_) break;
    const uint64_t deadline =
        queued_spans_.load(std::memory_order_relaxed) == 0
            ? clock_.NowNs() + 1000000000ull * 3600
            : oldest_ns_ + uint64_t{settings_.schedule_delay_ms} * 1000000;
    clock_.WaitUntil(&wake_, &mu_, deadline);
  }
  sent_.SignalAll();
}

void OtlpExporter::Send(size_t spans) {
  // No longer queued: as many more fit in the queue meanwhile.
  queued_spans_.fetch_sub(spans, std::memory_order_relaxed);
  staged_spans_ = 0;
  const uint64_t now = clock_.NowNs();
  Status status;
  if (now < down_until_ns_) {
    status = Status::Unavailable("");  // not even encoded
  } else {
    size_t encoded = 0;
    status = transport_->Send(encoder_->EncodeAll(batch_.data(), batch_.size(),
                                                  UnixMinusSteadyNs(), &buffer_, &encoded));
    if (!status.ok()) {
      down_until_ns_ = clock_.NowNs() + kRetryAfterMs * 1000000;
      // Logged once per failing try, which kRetryAfterMs spaces out.
      LOG_WARNING("dropped {} spans; the next {} ms of spans are dropped too: {}", spans,
                  kRetryAfterMs, status.message());
    }
  }
  (status.ok() ? exported_ : dropped_).fetch_add(spans, std::memory_order_relaxed);
  for (SpanRecord* record : batch_) Recycle(record);
  batch_.clear();
}

}  // namespace inferd
