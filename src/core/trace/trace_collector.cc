#include "core/trace/trace_collector.h"

namespace inferd {

TraceCollector::TraceCollector(std::shared_ptr<TraceFile> file, uint32_t log_frequency,
                               int32_t count)
    : file_(std::move(file)), log_frequency_(log_frequency), remaining_(count) {}

TraceCollector::~TraceCollector() { Flush(); }

bool TraceCollector::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (remaining_ == 0) return false;
  if (remaining_ > 0) --remaining_;
  ++taken_;
  return true;
}

int32_t TraceCollector::remaining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remaining_;
}

void TraceCollector::Add(const std::string& trace_json) {
  std::unique_lock<std::mutex> lock(mu_);
  if (buffered_ > 0) buffer_.push_back(',');
  buffer_ += trace_json;
  ++buffered_;
  ++finished_;
  WriteIfDue(lock);
}

void TraceCollector::Abandon() {
  std::unique_lock<std::mutex> lock(mu_);
  ++finished_;
  WriteIfDue(lock);
}

void TraceCollector::WriteIfDue(std::unique_lock<std::mutex>& lock) {
  const bool count_done = remaining_ == 0 && finished_ == taken_;
  const bool batch_full = log_frequency_ > 0 && buffered_ >= log_frequency_;
  if (buffered_ == 0 || !(count_done || batch_full)) return;
  std::string traces;
  traces.swap(buffer_);
  buffered_ = 0;
  // Indexed files are numbered in the order their writes start; the file
  // takes the index under its own lock, so release ours first.
  lock.unlock();
  file_->WriteIndexed(traces);
}

void TraceCollector::Flush() {
  std::string traces;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
