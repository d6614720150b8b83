// The admission counters one request is counted in (model/admission.h): its
// model's and the server's queued counts while it waits for an instance, and
// the server's in-flight count until it is released. Whoever admits the
// request adds it to the counters and hands them here; the instance that
// starts executing it takes it out of the queued ones, its release out of
// all. An ensemble request never executes on an instance, so it counts as
// queued in its ensemble until it ends. Touched by one thread at a time, as
// the request is; the counters are shared atomics.
#ifndef INFERD_CORE_INFER_ADMISSION_MARKS_H_
#define INFERD_CORE_INFER_ADMISSION_MARKS_H_

#include <atomic>
#include <cstdint>

namespace inferd {

class AdmissionMarks {
 public:
  // The request was just counted (+1) in each counter given (null: not
  // counted there); it starts out queued.
  void Adopt(std::atomic<int64_t>* model_queued, std::atomic<int64_t>* server_queued,
             std::atomic<int64_t>* server_inflight) {
    model_queued_ = model_queued;
    server_queued_ = server_queued;
    server_inflight_ = server_inflight;
    queued_ = true;
  }
  // It starts executing (a batch took it).
  void LeaveQueue() {
    if (!queued_) return;
    queued_ = false;
    Add(model_queued_, -1);
    Add(server_queued_, -1);
  }
  // It waits again (its backend rescheduled it).
  void EnterQueue() {
    if (queued_ || (model_queued_ == nullptr && server_queued_ == nullptr)) return;
    queued_ = true;
    Add(model_queued_, 1);
    Add(server_queued_, 1);
  }
  // It is released (or refused after admission): out of every counter.
  void Release() {
    LeaveQueue();
    Add(server_inflight_, -1);
    model_queued_ = server_queued_ = server_inflight_ = nullptr;
  }

 private:
  static void Add(std::atomic<int64_t>* counter, int64_t delta) {
    if (counter != nullptr) counter->fetch_add(delta, std::memory_order_relaxed);
  }

  std::atomic<int64_t>* model_queued_ = nullptr;
  std::atomic<int64_t>* server_queued_ = nullptr;
  std::atomic<int64_t>* server_inflight_ = nullptr;
  bool queued_ = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_ADMISSION_MARKS_H_
