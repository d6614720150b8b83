#include "core/common/copy_workers.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>

namespace inferd {

CopyWorkers::CopyWorkers(size_t threads) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "inferd-copy");
      Run();
    });
  }
}

CopyWorkers::~CopyWorkers() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    work_cv_.SignalAll();
  }
  for (std::thread& thread : threads_) thread.join();
}

void CopyWorkers::Copy(std::span<const MemoryCopy> copies) {
  size_t total = 0;
  for (const MemoryCopy& copy : copies) total += copy.byte_size;
  if (threads_.empty() || total < kMinParallelBytes) {
    for (const MemoryCopy& copy : copies) {
      if (copy.byte_size > 0) std::memcpy(copy.dst, copy.src, copy.byte_size);
    }
    return;
  }
  // About one piece per thread (the caller's included), none below the minimum.
  const size_t piece = std::max(kMinPieceBytes, total / (threads_.size() + 1) + 1);
  Job job;
  for (const MemoryCopy& copy : copies) {
    for (size_t offset = 0; offset < copy.byte_size; offset += piece) {
      const size_t size = std::min(piece, copy.byte_size - offset);
      job.pieces.push_back({static_cast<char*>(copy.dst) + offset,
                            static_cast<const char*>(copy.src) + offset, size});
    }
  }
  parallel_copies_.fetch_add(1, std::memory_order_relaxed);
  {
    MutexLock lock(&mu_);
    jobs_.push_back(&job);
    work_cv_.SignalAll();
  }
  const size_t mine = Work(job);
  MutexLock lock(&mu_);
  job.copied += mine;
  Retire(&job);
  while (job.copied < job.pieces.size() || job.helpers > 0) done_cv_.Wait(&mu_);
}

void CopyWorkers::Run() {
  MutexLock lock(&mu_);
  while (true) {
    while (!stopping_ && jobs_.empty()) work_cv_.Wait(&mu_);
    if (stopping_) return;
    Job* job = jobs_.front();
    ++job->helpers;
    lock.Unlock();
    const size_t copied = Work(*job);
    lock.Lock();
    job->copied += copied;
    --job->helpers;
    Retire(job);
    done_cv_.SignalAll();
  }
}

size_t CopyWorkers::Work(Job& job) {
  size_t copied = 0;
  for (size_t i = job.next.fetch_add(1); i < job.pieces.size(); i = job.next.fetch_add(1)) {
    const MemoryCopy& piece = job.pieces[i];
    std::memcpy(piece.dst, piece.src, piece.byte_size);
    ++copied;
  }
  return copied;
}

void CopyWorkers::Retire(Job* job) {
  // Every piece is taken: no worker needs to find the job any more.
  auto it = std::find(jobs_.begin(), jobs_.end(), job);
  if (it != jobs_.end()) jobs_.erase(it);
}

}  // namespace inferd
