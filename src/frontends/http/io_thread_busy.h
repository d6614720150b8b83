// Which HTTP I/O threads are inside a call that may execute a model on them.
// A short model runs on the thread that submits its request (the core's
// caller execution), and every connection lives on one I/O thread, so while
// an execution that turns out long holds a thread, that thread's connections
// wait. The acceptor reads these flags to give a new connection to a thread
// that is free.
#ifndef INFERD_FRONTENDS_HTTP_IO_THREAD_BUSY_H_
#define INFERD_FRONTENDS_HTTP_IO_THREAD_BUSY_H_

#include <atomic>

namespace inferd::http {

class IoThreadBusy {
 public:
  // Called once by each I/O thread with its own flag (owned by the server).
  static void BindThread(std::atomic<bool>* flag) { flag_ = flag; }

  // Marks the calling I/O thread busy for its lifetime; nothing elsewhere.
  class Scope {
   public:
    Scope() : flag_(IoThreadBusy::flag_) {
      if (flag_ != nullptr) flag_->store(true, std::memory_order_relaxed);
    }
    ~Scope() {
      if (flag_ != nullptr) flag_->store(false, std::memory_order_relaxed);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    std::atomic<bool>* const flag_;
  };

 private:
  static inline thread_local std::atomic<bool>* flag_ = nullptr;
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_IO_THREAD_BUSY_H_
