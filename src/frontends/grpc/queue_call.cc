// The life of a call on a completion queue.
#include "grpc/queue_call.h"

#include <sys/resource.h>

namespace inferd::grpc_frontend {

QueueCall::QueueCall(grpc::ServerCompletionQueue* queue, LiveCalls* live)
    : queue_(queue), live_(live) {
  live_->Add();
}

QueueCall::~QueueCall() { live_->Remove(); }

void QueueCall::Await() {
  // Registered before the call is requested, as gRPC requires; its tag comes
  // back only for a call that arrived.
  context_.AsyncNotifyWhenDone(&done_);
  RequestCall(queue_, &arrive_);
}

void QueueCall::Complete(Op op, bool ok) {
  switch (op) {
    case Op::kArrive:
      // Not ok: the server shut down before a call came. No other tag of
      // this object will come back.
      if (!ok) {
        delete this;
        return;
      }
      OnArrived();
      return;
    case Op::kRead:
      OnReadDone(ok);
      break;
    case Op::kWrite:
      OnWriteDone(ok);
      break;
    case Op::kFinish:
      break;
    case Op::kDone:
      // Safe to ask only now. A call that finished normally is not cancelled.
      if (context_.IsCancelled()) OnCancel();
      break;
  }
  EndOp();
}

void QueueCall::EndOp() {
  if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  OnDone();
  delete this;
}

namespace {

// The times the calling thread went to sleep so far (voluntary context
// switches): exact where timing a wait would guess.
long SleepsOfThisThread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

}  // namespace

void PollQueue(grpc::ServerCompletionQueue* queue, QueueLoad* load) {
  void* tag = nullptr;
  bool ok = false;
  if (load == nullptr) {
    while (queue->Next(&tag, &ok)) static_cast<QueueTag*>(tag)->Proceed(ok);
    return;
  }
  long sleeps = SleepsOfThisThread();
  while (queue->Next(&tag, &ok)) {
    const long now = SleepsOfThisThread();
    load->Observe(now != sleeps);
    sleeps = now;
    static_cast<QueueTag*>(tag)->Proceed(ok);
  }
}

}  // namespace inferd::grpc_frontend
