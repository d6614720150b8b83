// The models of a start whose files are in place (ModelSource::MaterializeEach
// reporting each as it arrives), queued in arrival order for the load threads:
// each model loads as soon as its own files are there, while the others still
// download. Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_ARRIVALS_H_
#define INFERD_CORE_LIFECYCLE_ARRIVALS_H_

#include <deque>
#include <optional>
#include <utility>

#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd {

class Arrivals {
 public:
  struct Arrival {
    size_t index = 0;  // into the list of models being materialized
    Status status;     // why its files are not there, if they are not
  };

  void Push(size_t index, Status status) {
    MutexLock lock(&mu_);
    queue_.push_back({index, std::move(status)});
    changed_.Signal();
  }
  // Nothing more will arrive: Pop returns nothing once the queue is empty.
  void Close() {
    MutexLock lock(&mu_);
    closed_ = true;
    changed_.SignalAll();
  }
  // The earliest arrival not taken yet, waiting for one; nothing once closed
  // and empty.
  std::optional<Arrival> Pop() {
    MutexLock lock(&mu_);
    while (queue_.empty() && !closed_) changed_.Wait(&mu_);
    if (queue_.empty()) return std::nullopt;
    Arrival arrival = std::move(queue_.front());
    queue_.pop_front();
    return arrival;
  }

 private:
  Mutex mu_;
  std::deque<Arrival> queue_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
  CondVar changed_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_ARRIVALS_H_
