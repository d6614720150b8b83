// One call of the gRPC frontend on gRPC's completion-queue API, shaped like
// the callback API's reactors (Finish, StartRead, StartWrite, OnReadDone,
// OnWriteDone, OnCancel, OnDone) so that the handlers read the same.
//
// Why not the callback API: gRPC 1.51 runs callback methods on at least two
// threads of its own that poll the same epoll set as every other thread of
// gRPC's, so each call's events were handed between threads: about four
// thread wake-ups per unary call. One thread polling one completion queue
// reads a call, runs its handler (and a short model, executed on the
// caller) and writes its answer without waking another: bench/grpc_ceiling.cc
// measures 65 against 115 microseconds of CPU per call (bench section 17).
//
// A call object is created before its call arrives: Await asks gRPC for the
// next call of its method on the queue, and OnArrived, run on the queue's
// thread, first awaits the method's next call with a new object, then
// serves this one. Operations end on the queue's thread (Proceed); Finish,
// StartRead and StartWrite may be called from any thread (gRPC allows one
// read and one write outstanding at once, and Finish with no write
// outstanding). The object deletes itself once Finish and every read and
// write it started have ended and gRPC said the call is done.
#ifndef INFERD_FRONTENDS_GRPC_QUEUE_CALL_H_
#define INFERD_FRONTENDS_GRPC_QUEUE_CALL_H_

#include <grpcpp/completion_queue.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/async_stream.h>
#include <grpcpp/support/async_unary_call.h>

#include <atomic>
#include <cstdint>

namespace inferd::grpc_frontend {

// What the completion queue hands back: one operation of one call ended.
class QueueTag {
 public:
  virtual void Proceed(bool ok) = 0;

 protected:
  ~QueueTag() = default;
};

// The calls alive on a frontend's queues, awaited ones included: the queues
// are shut down only once none is left, since an operation of a live call
// may still end on them. Lock-free while calls come and go.
class LiveCalls {
 public:
  void Add() { count_.fetch_add(1, std::memory_order_relaxed); }
  void Remove() {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) count_.notify_all();
  }
  // Returns once no call is alive (after the server's shutdown, when no
  // call is awaited any more).
  void WaitForNone() {
    for (int n = count_.load(std::memory_order_acquire); n != 0;
         n = count_.load(std::memory_order_acquire)) {
      count_.wait(n, std::memory_order_acquire);
    }
  }

 private:
  std::atomic<int> count_{0};
};

// Whether a queue's thread is behind its calls: the event it is handling was
// already waiting when it asked for it, so it did not sleep. While it is,
// ModelInfer hands a short model's execution to the model's instance threads
// instead of running it on the queue's thread (InferReactor): at saturation
// the executions spread over the instances and the one thread does only
// gRPC's work; a call that arrives after the thread slept (everyday load)
// runs on it and costs one wake-up.
class QueueLoad {
 public:
  // The queue's thread, after each Next: whether it slept in it.
  void Observe(bool slept) { behind_.store(!slept, std::memory_order_relaxed); }
  // Any thread.
  bool behind() const { return behind_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> behind_{false};
};

class QueueCall {
 public:
  QueueCall(const QueueCall&) = delete;
  QueueCall& operator=(const QueueCall&) = delete;

  grpc::ServerContext* context() { return &context_; }

 protected:
  QueueCall(grpc::ServerCompletionQueue* queue, LiveCalls* live);
  virtual ~QueueCall();

  // Asks gRPC for the next call of this object's method (RequestCall); called
  // once, right after construction.
  void Await();
  // The generated service's Request<Method> with this object's messages.
  virtual void RequestCall(grpc::ServerCompletionQueue* queue, void* tag) = 0;
  // The call arrived. Awaits the method's next call, then serves this one.
  virtual void OnArrived() = 0;
  // The client cancelled the call, or it broke, before it finished.
  virtual void OnCancel() {}
  virtual void OnReadDone(bool /*ok*/) {}
  virtual void OnWriteDone(bool /*ok*/) {}
  // Every operation ended; the object is deleted right after.
  virtual void OnDone() {}

  grpc::ServerCompletionQueue* queue() const { return queue_; }
  LiveCalls* live() const { return live_; }
  // Tags of the operations a subclass starts. A read or a write counts as
  // outstanding from StartOp until its tag comes back.
  void* read_tag() { return &read_; }
  void* write_tag() { return &write_; }
  void* finish_tag() { return &finish_; }
  void StartOp() { outstanding_.fetch_add(1, std::memory_order_relaxed); }

 private:
  enum class Op { kArrive, kRead, kWrite, kFinish, kDone };
  struct OpTag final : QueueTag {
    OpTag(QueueCall* c, Op o) : call(c), op(o) {}
    void Proceed(bool ok) override { call->Complete(op, ok); }
    QueueCall* const call;
    const Op op;
  };

  void Complete(Op op, bool ok);
  // One outstanding operation ended; the last deletes the object.
  void EndOp();

  grpc::ServerContext context_;
  grpc::ServerCompletionQueue* const queue_;
  LiveCalls* const live_;
  // Finish's and the done notification's, plus each read or write running.
  std::atomic<int> outstanding_{2};
  OpTag arrive_{this, Op::kArrive};
  OpTag read_{this, Op::kRead};
  OpTag write_{this, Op::kWrite};
  OpTag finish_{this, Op::kFinish};
  OpTag done_{this, Op::kDone};
};

// A unary call: one request, one response (`*response`, owned by the subclass).
template <class Response>
class UnaryQueueCall : public QueueCall {
 public:
  // Answers the call: the response with an OK status, the status alone
  // otherwise. Once; any thread.
  void Finish(const grpc::Status& status) {
    if (status.ok()) {
      writer_.Finish(*response_, status, finish_tag());
    } else {
      writer_.FinishWithError(status, finish_tag());
    }
  }

 protected:
  UnaryQueueCall(grpc::ServerCompletionQueue* queue, LiveCalls* live, Response* response)
      : QueueCall(queue, live), response_(response) {}

  grpc::ServerAsyncResponseWriter<Response>* writer() { return &writer_; }
  // For a response made after construction (on the subclass's arena).
  void set_response(Response* response) { response_ = response; }

 private:
  Response* response_;  // set before the call is awaited
  grpc::ServerAsyncResponseWriter<Response> writer_{context()};
};

// A bidirectional stream: at most one read and one write outstanding.
template <class Request, class Response>
class BidiQueueCall : public QueueCall {
 public:
  void StartRead(Request* request) {
    StartOp();
    stream_.Read(request, read_tag());
  }
  void StartWrite(const Response* response, grpc::WriteOptions options) {
    StartOp();
    stream_.Write(*response, options, write_tag());
  }
  // Ends the call with `status`; never while a write is outstanding. A read
  // still outstanding ends not ok.
  void Finish(const grpc::Status& status) { stream_.Finish(status, finish_tag()); }

 protected:
  BidiQueueCall(grpc::ServerCompletionQueue* queue, LiveCalls* live)
      : QueueCall(queue, live) {}

  grpc::ServerAsyncReaderWriter<Response, Request>* stream() { return &stream_; }

 private:
  grpc::ServerAsyncReaderWriter<Response, Request> stream_{context()};
};

// Serves `queue` on the calling thread until the queue is shut down and
// drained, telling `load` (may be null) how long each wait for it took.
void PollQueue(grpc::ServerCompletionQueue* queue, QueueLoad* load);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_QUEUE_CALL_H_
