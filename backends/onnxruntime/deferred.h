// A value made on a thread of its own from the moment the Deferred is
// constructed, so that a caller can go on with work that does not need it yet;
// Get() waits until it is made. The backend makes its ONNX Runtime environment
// this way: creating one costs ~16 ms of CPU (ORT registers every operator's
// schema), which would otherwise hold up every model of the server's start
// before its configuration is even read. Thread-safe.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_DEFERRED_H_
#define INFERD_BACKENDS_ONNXRUNTIME_DEFERRED_H_

#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace inferd::onnxruntime {

template <typename T>
class Deferred {
 public:
  // Starts a thread that runs `make` (throws std::system_error when no thread
  // can be started).
  explicit Deferred(std::function<T()> make)
      : thread_([this, make = std::move(make)] { value_ = make(); }) {}
  ~Deferred() { Wait(); }

  Deferred(const Deferred&) = delete;
  Deferred& operator=(const Deferred&) = delete;

  // The value, once made (waits for it).
  T& Get() {
    Wait();
    return value_;
  }

 private:
  void Wait() {
    std::call_once(joined_, [this] { thread_.join(); });
  }

  T value_{};  // written by thread_ only, read after it is joined
  std::once_flag joined_;
  std::thread thread_;  // last: starts once the members it touches exist
};

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_DEFERRED_H_
