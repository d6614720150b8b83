#include "model_control.h"

#include <thread>
#include <utility>

#include "inferd/base/mutex.h"

namespace inferd::python {
namespace {

struct Running {
  Mutex mu;
  CondVar cv;
  int count GUARDED_BY(mu) = 0;
};

// Alive as long as the library: threads may still end after a model went.
Running& Calls() {
  static Running* running = new Running();
  return *running;
}

}  // namespace

void RunModelControl(std::function<Status()> op, std::function<void(const Status&)> done) {
  Running& calls = Calls();
  {
    MutexLock lock(&calls.mu);
    ++calls.count;
  }
  std::thread([op = std::move(op), done = std::move(done), &calls]() mutable {
    done(op());
    // Everything the call owns goes before the count says it ended.
    op = nullptr;
    done = nullptr;
    MutexLock lock(&calls.mu);
    --calls.count;
    calls.cv.SignalAll();
  }).detach();
}

void AwaitModelControls() {
  Running& calls = Calls();
  MutexLock lock(&calls.mu);
  while (calls.count > 0) calls.cv.Wait(&calls.mu);
}

}  // namespace inferd::python
