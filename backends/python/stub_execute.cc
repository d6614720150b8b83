// Executing a batch on the stub (see stub_instance.h): the requests read
// into shared memory, handed to the stub, and the wait until its execute()
// returned.
#include "stub_instance.h"

#include <signal.h>

#include <string>
#include <utility>

#include "backend_io.h"
#include "common/steady_clock.h"
#include "wire_format.h"

namespace inferd::python {

using backend_common::SteadyNowNs;

bool StubInstance::ReadBatch(uint64_t batch) {
  ControlMessage m;
  for (;;) {
    const uint64_t window = execute_spin_.Window();
    const uint64_t start = SteadyNowNs();
    const bool received = main_.Receive(&m, window);
    execute_spin_.Record(window, SteadyNowNs() - start);
    if (!received) return false;
    Dispatch(m);
    MutexLock lock(&mu_);
    if (done_batch_ >= batch) return true;
  }
}

void StubInstance::MarkBatchDone() {
  // Batches run one at a time per instance: the one running is the last sent.
  MutexLock lock(&mu_);
  done_batch_ = next_batch_;
  executing_.store(false, std::memory_order_release);
  cv_.SignalAll();
}

void StubInstance::FailAll(std::vector<RequestReply>* replies, const Status& error) {
  for (RequestReply& reply : *replies) {
    Status sent = reply.SendError(error, true);
    (void)sent;
  }
  replies->clear();
}

void StubInstance::Execute(INFERD_ModelInstance* instance, INFERD_Request** requests,
                           uint32_t count) {
  uint64_t generation = 0;
  if (!AwaitReady(requests, count, &generation)) return;
  std::vector<RequestView> views;
  std::vector<RequestReply> replies;
  OpenRequests(requests, count, &views, &replies);
  if (replies.empty()) return;
  const uint64_t size = BatchBlockSize(views);
  const std::optional<uint64_t> block = PlaceBatch(size, &views, &replies);
  if (!block) return;
  WriteBatchBlock(views, region_.base() + *block, *block);
  const uint64_t first_handle = views.front().handle;
  views.clear();  // they borrowed from requests that may be released next
  // A decoupled model's inputs are in shared memory: the server may have its
  // requests back; their senders answer them from here on. Unless execute()
  // may reschedule them (an iterative sequence): kept until it returned.
  if (!settings_.iterative) {
    for (RequestReply& reply : replies) reply.Detach();
  }
  RunBatch(instance, generation, *block, size, first_handle, &replies);
}

bool StubInstance::AwaitReady(INFERD_Request** requests, uint32_t count, uint64_t* generation) {
  MutexLock lock(&mu_);
  while (state_ == State::kStarting) cv_.Wait(&mu_);
  if (state_ != State::kReady) {
    const Status error = state_ == State::kBroken
                             ? broken_
                             : Status::Unavailable(Label() + ": the instance is stopping");
    lock.Unlock();
    for (uint32_t i = 0; i < count; ++i) FailRequest(requests[i], error);
    return false;
  }
  *generation = generation_;
  return true;
}

void StubInstance::OpenRequests(INFERD_Request** requests, uint32_t count,
                                std::vector<RequestView>* views,
                                std::vector<RequestReply>* replies) {
  // Read every request; one the ABI refuses fails alone.
  views->reserve(count);
  replies->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    RequestView view;
    Status s = GatherRequest(requests[i], 0, &view);
    StatusOr<RequestReply> reply = s.ok() ? RequestReply::Open(requests[i], settings_.decoupled)
                                          : StatusOr<RequestReply>(s);
    if (!reply.ok()) {
      FailRequest(requests[i], reply.status().WithPrefix(Label() + ": "));
      continue;
    }
    views->push_back(std::move(view));
    replies->push_back(std::move(reply).value());
  }
}

std::optional<uint64_t> StubInstance::PlaceBatch(uint64_t size, std::vector<RequestView>* views,
                                                 std::vector<RequestReply>* replies) {
  MutexLock lock(&mu_);
  const std::optional<uint64_t> block = allocator_->Allocate(size);
  for (auto& view : *views) view.handle = next_handle_++;
  if (block) return block;
  const Status error = Status::Unavailable(
      Label() + ": the batch's inputs take " + std::to_string(size) +
      " bytes of shared memory, more than the " + std::to_string(allocator_->largest_free()) +
      " free (of " + std::to_string(allocator_->capacity()) +
      "); raise --backend-config=python,shm-region-size=BYTES");
  lock.Unlock();
  FailAll(replies, error);
  return std::nullopt;
}

void StubInstance::RunBatch(INFERD_ModelInstance* instance, uint64_t generation, uint64_t block,
                            uint64_t size, uint64_t first_handle,
                            std::vector<RequestReply>* replies) {
  MutexLock lock(&mu_);
  if (generation_ != generation || send_fd_ < 0) {
    allocator_->Free(block);
    lock.Unlock();
    FailAll(replies, Status::Unavailable(Label() + ": the Python stub restarted meanwhile"));
    return;
  }
  uint64_t handle = first_handle;
  for (RequestReply& reply : *replies) in_flight_[handle++] = InFlight{std::move(reply), block};
  batch_pending_[block] = static_cast<uint32_t>(replies->size());
  const uint64_t batch = ++next_batch_;
  executing_.store(true, std::memory_order_release);
  const uint64_t compute_start = SteadyNowNs();
  ControlChannel::SendTo(send_fd_, MakeMessage(MessageType::kExecute, batch, block, size));
  if (!settings_.decoupled) {
    // Nobody else reads the channel of a model that is not decoupled: this
    // thread waits anyway, so it answers the batch itself (one thread less to
    // wake per execution). A failed send or read means the stub died: the
    // supervisor fails what it held.
    reading_ = true;
    lock.Unlock();
    const bool alive = ReadBatch(batch);
    INFERD_ErrorDelete(
        INFERD_ModelInstanceReportComputeTimes(instance, compute_start, SteadyNowNs()));
    lock.Lock();
    reading_ = false;
    if (!alive && generation_ == generation) {
      // Requests queued behind this batch wait for the next stub. A stub that
      // closed its channel but lives on is of no use: the supervisor sees it
      // end and fails what it held.
      if (!stopping_) state_ = State::kStarting;
      if (live_pid_ > 0) kill(live_pid_, SIGKILL);
    }
    cv_.SignalAll();
    return;
  }
  // A failed send means the stub died: the supervisor fails the batch and
  // bumps the generation, which ends this wait.
  while (done_batch_ < batch && generation_ == generation) cv_.Wait(&mu_);
  lock.Unlock();
  INFERD_ErrorDelete(
      INFERD_ModelInstanceReportComputeTimes(instance, compute_start, SteadyNowNs()));
}

}  // namespace inferd::python
