// The server's buffer-manager threads (--buffer-manager-thread-count): large
// memory copies a backend makes while it gathers a batch's inputs or scatters
// its outputs are split across them, the calling thread taking its share.
// With no threads, or copies too small to be worth the hand-off, everything
// is copied on the calling thread.
#ifndef INFERD_CORE_COMMON_COPY_WORKERS_H_
#define INFERD_CORE_COMMON_COPY_WORKERS_H_

#include <atomic>
#include <cstddef>
#include <deque>
#include <span>
#include <thread>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd {

struct MemoryCopy {
  void* dst = nullptr;
  const void* src = nullptr;
  size_t byte_size = 0;
};

class CopyWorkers {
 public:
  // Below this many bytes in all, a hand-off costs more than it saves.
  static constexpr size_t kMinParallelBytes = 256 * 1024;
  // No piece handed to a thread is smaller than this.
  static constexpr size_t kMinPieceBytes = 64 * 1024;

  explicit CopyWorkers(size_t threads);
  ~CopyWorkers();
  CopyWorkers(const CopyWorkers&) = delete;
  CopyWorkers& operator=(const CopyWorkers&) = delete;

  // Makes every copy and returns when all are done. Any thread; concurrent
  // calls share the threads.
  void Copy(std::span<const MemoryCopy> copies) EXCLUDES(mu_);

  size_t thread_count() const { return threads_.size(); }
  // Copies that were split across the threads (for tests and logs).
  uint64_t parallel_copies() const { return parallel_copies_.load(std::memory_order_relaxed); }

 private:
  // One Copy call's pieces; lives on the caller's stack until every piece is
  // copied and no worker still holds it.
  struct Job {
    std::vector<MemoryCopy> pieces;
    std::atomic<size_t> next{0};  // the next piece to take
    size_t copied = 0;            // guarded by mu_
    size_t helpers = 0;           // workers inside the job; guarded by mu_
  };

  void Run() EXCLUDES(mu_);
  // Copies pieces of `job` until none is left to take; returns how many.
  static size_t Work(Job& job);
  void Retire(Job* job) REQUIRES(mu_);

  Mutex mu_;
  CondVar work_cv_;  // a job was queued, or stopping
  CondVar done_cv_;  // a job's piece count or helpers changed
  std::deque<Job*> jobs_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::atomic<uint64_t> parallel_copies_{0};
  std::vector<std::thread> threads_;
};

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_COPY_WORKERS_H_
