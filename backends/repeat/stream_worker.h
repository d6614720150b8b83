// The thread that sends a model's responses: the streams in progress wait in
// one queue ordered by when their next step is due, and the worker runs each
// step when its time comes. Many concurrent streams thus interleave on one
// thread instead of holding a thread (or an instance) each, and execute
// returns as soon as it has queued its requests' streams.
//
// Streams due at the same time take turns in the order they were queued, so
// no stream starves another. A step sends outside the lock: a send may call
// into the server and back into its frontend.
//
// Lifetime: one per model, stopped by model finalize. Thread-safe.
#ifndef INFERD_BACKENDS_REPEAT_STREAM_WORKER_H_
#define INFERD_BACKENDS_REPEAT_STREAM_WORKER_H_

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"
#include "stream.h"

namespace inferd::repeat {

class StreamWorker {
 public:
  using Clock = Stream::Clock;

  StreamWorker();  // starts the thread
  ~StreamWorker();  // Stop()
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  // Queues `stream`, its first step due at `due`. Any thread.
  void Add(std::unique_ptr<Stream> stream, Clock::time_point due) EXCLUDES(mu_);

  // Stops and joins the thread, then destroys the streams not ended: their
  // senders are deleted without FINAL, and the server ends those requests
  // with an error. Idempotent; not from the worker thread.
  void Stop() EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);

  Mutex mu_;
  CondVar wake_;  // a stream was queued earlier than the first, or Stop
  // multimap keeps streams with equal times in insertion order.
  std::multimap<Clock::time_point, std::unique_ptr<Stream>> due_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Stream>> held_ GUARDED_BY(mu_);  // Next::kHold
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // started by the constructor, joined by Stop
};

}  // namespace inferd::repeat

#endif  // INFERD_BACKENDS_REPEAT_STREAM_WORKER_H_
