// The models of a start as their files arrive (ModelSource::MaterializeEach
// reporting each one as soon as its copy is whole), for the load threads: each
// model is prepared (its config read, its backend opened) and loaded as soon
// as its own files are there, while the others still download. Preparing
// comes first: when many models are there at once (a local folder: all of
// them), the threads prepare them all and then load them, as two passes, so
// that the config parsing's garbage does not land between the loads (a local
// start of 1,000 identity models: 114 ms of CPU, 126 ms interleaved, with
// malloc consolidating free chunks at every load). Loads go in the order
// the models were prepared, which is the order they arrived. Thread-safe.
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
  struct Task {
    size_t index = 0;      // into the list of models being materialized
    bool prepare = false;  // prepare it (then call Prepared), else load it
    Status status;         // to prepare: why its files are not there, if they are not
  };

  // Model `index` arrived (`status`: or failed to).
  void Push(size_t index, Status status) {
    MutexLock lock(&mu_);
    arrived_.push_back({index, true, std::move(status)});
    changed_.Signal();
  }
  // Nothing more will arrive.
  void Close() {
    MutexLock lock(&mu_);
    closed_ = true;
    changed_.SignalAll();
  }
  // A task of Next() to prepare model `index` is done: it may be loaded.
  void Prepared(size_t index) {
    MutexLock lock(&mu_);
    --preparing_;
    prepared_.push_back(index);
    changed_.SignalAll();
  }
  // The next task, waiting for one: a model to prepare if one arrived, else
  // one to load; nothing once every model arrived, was prepared and taken.
  std::optional<Task> Next() {
    MutexLock lock(&mu_);
    while (arrived_.empty() && prepared_.empty() && !(closed_ && preparing_ == 0)) {
      changed_.Wait(&mu_);
    }
    if (!arrived_.empty()) {
      Task task = std::move(arrived_.front());
      arrived_.pop_front();
      ++preparing_;
      return task;
    }
    if (prepared_.empty()) return std::nullopt;
    Task task{prepared_.front(), false, Status::Ok()};
    prepared_.pop_front();
    return task;
  }

 private:
  Mutex mu_;
  std::deque<Task> arrived_ GUARDED_BY(mu_);
  std::deque<size_t> prepared_ GUARDED_BY(mu_);
  size_t preparing_ GUARDED_BY(mu_) = 0;
  bool closed_ GUARDED_BY(mu_) = false;
  CondVar changed_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_ARRIVALS_H_
