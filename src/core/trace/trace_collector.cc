#include "core/trace/trace_collector.h"

namespace inferd {

TraceCollector::TraceCollector(std::shared_ptr<TraceFile> file, uint32_t log_frequency,
                               int32_t count, std::shared_ptr<OtlpExporter> exporter)
    : file_(std::move(file)),
      log_frequency_(log_frequency),
      exporter_(std::move(exporter)),
      remaining_(count) {}

TraceCollector::~TraceCollector() { Flush(); }

bool TraceCollector::Take() {
  MutexLock lock(&mu_);
  if (remaining_ == 0) return false;
  if (remaining_ > 0) --remaining_;
  ++taken_;
  return true;
}

void TraceCollector::TakeChild() {
  MutexLock lock(&mu_);
  ++taken_;
}

int32_t TraceCollector::remaining() const {
  MutexLock lock(&mu_);
  return remaining_;
}

void TraceCollector::Add(const std::string& trace_json) {
  std::string due;
  {
    MutexLock lock(&mu_);
    if (buffered_ > 0) buffer_.push_back(',');
    buffer_ += trace_json;
    ++buffered_;
    ++finished_;
    due = TakeIfDue();
  }
  // Indexed files are numbered in the order their writes start; the file
  // takes the index under its own lock, so ours is released first.
  if (!due.empty()) file_->WriteIndexed(due);
}

void TraceCollector::Abandon() {
  std::string due;
  {
    MutexLock lock(&mu_);
    ++finished_;
    due = TakeIfDue();
  }
  if (!due.empty()) file_->WriteIndexed(due);
}

std::string TraceCollector::TakeIfDue() {
  const bool count_done = remaining_ == 0 && finished_ == taken_;
  const bool batch_full = log_frequency_ > 0 && buffered_ >= log_frequency_;
  std::string traces;
  if (buffered_ == 0 || !(count_done || batch_full)) return traces;
  traces.swap(buffer_);
  buffered_ = 0;
  return traces;
}

void TraceCollector::Flush() {
  std::string traces;
  {
    MutexLock lock(&mu_);
    if (buffered_ == 0) return;
    traces.swap(buffer_);
    buffered_ = 0;
  }
  if (log_frequency_ > 0) {
    file_->WriteIndexed(traces);
  } else {
    file_->Append(traces);
  }
}

}  // namespace inferd
