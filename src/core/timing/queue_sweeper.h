// Answers queued requests whose timeout runs out, or that are cancelled, while
// every instance of their model is busy. A dynamic batcher's instances look at
// the queue only between executions, so without this a request with a 100 ms
// timeout (action REJECT) would wait for the running batch to end, however
// long it takes, and a timeout would never shed load when it matters most.
//
// The server owns one, with its clock; its thread starts the first time a
// deadline is scheduled and sleeps until the earliest one, so a server whose
// requests carry no timeout never starts it. Thread-safe.
#ifndef INFERD_CORE_TIMING_QUEUE_SWEEPER_H_
#define INFERD_CORE_TIMING_QUEUE_SWEEPER_H_

#include <cstdint>
#include <map>
#include <set>
#include <thread>

#include "core/timing/clock.h"
#include "inferd/base/mutex.h"

namespace inferd {

// What the sweeper calls back: a queue whose requests may expire or be
// cancelled.
class ExpiringQueue {
 public:
  virtual ~ExpiringQueue() = default;
  // Answers what has expired or been cancelled by `now_ns`; returns the next
  // deadline, or 0.
  virtual uint64_t SweepExpired(uint64_t now_ns) = 0;
};

class QueueSweeper {
 public:
  using Queue = ExpiringQueue;

  explicit QueueSweeper(const Clock& clock) : clock_(clock) {}
  // Stops the thread; every queue must have been forgotten.
  ~QueueSweeper();
  QueueSweeper(const QueueSweeper&) = delete;
  QueueSweeper& operator=(const QueueSweeper&) = delete;

  const Clock& clock() const { return clock_; }

  // Makes `queue` known; Schedule ignores queues that are not (any more).
  void Register(Queue* queue) EXCLUDES(mu_);
  // Calls queue->SweepExpired at `when_ns` (on the clock) or soon after,
  // unless an earlier call is already due for it. May be called with the
  // queue's own lock held: the sweeper never holds its lock while calling a
  // queue. A queue that is not registered is ignored, so a caller holding a
  // pointer that may be stale (a request cancelled as its model unloads) is
  // safe.
  void Schedule(Queue* queue, uint64_t when_ns) EXCLUDES(mu_);
  // Schedule(queue, now): a cancelled request leaves its queue at once.
  void SweepSoon(Queue* queue) { Schedule(queue, clock_.NowNs()); }
  // Unregisters `queue`; if it is being swept right now, waits until that
  // ends. After this returns the sweeper never touches it again.
  void Forget(Queue* queue) EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);

  const Clock& clock_;
  Mutex mu_;
  CondVar changed_;  // a new earliest deadline, or stop
  CondVar swept_;    // a sweep ended
  std::set<Queue*> registered_ GUARDED_BY(mu_);
  std::map<Queue*, uint64_t> due_ GUARDED_BY(mu_);
  Queue* sweeping_ GUARDED_BY(mu_) = nullptr;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_ GUARDED_BY(mu_);  // started by the first Schedule
};

}  // namespace inferd

#endif  // INFERD_CORE_TIMING_QUEUE_SWEEPER_H_
