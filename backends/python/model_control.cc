#include "model_control.h"

#include <dlfcn.h>

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

// Whether this thread is one of the calls (an unload it runs may finalize
// the backend, which must not wait for the thread that called it).
thread_local bool in_call = false;

// Keeps this library mapped for good once a call ran: the unload a call runs
// may release the last Python model, and with it the library, while the
// call's thread still has this library's code to return through.
void PinLibrary() {
  static const bool pinned = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&PinLibrary), &info) == 0 || info.dli_fname == nullptr) {
      return false;
    }
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
  }();
  (void)pinned;
}

}  // namespace

void RunModelControl(std::function<Status()> op, std::function<void(const Status&)> done) {
  PinLibrary();
  Running& calls = Calls();
  {
    MutexLock lock(&calls.mu);
    ++calls.count;
  }
  std::thread([op = std::move(op), done = std::move(done), &calls]() mutable {
    in_call = true;
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
  while (calls.count > (in_call ? 1 : 0)) calls.cv.Wait(&calls.mu);
}

}  // namespace inferd::python
