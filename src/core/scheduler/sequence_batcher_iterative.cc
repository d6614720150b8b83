// The sequence batcher's iterative sequences (sequence_batching
// { iterative_sequence: true }, sequence_batcher.h): sequences the batcher
// starts for requests without an id, requests their backend reschedules, and
// sequences that end with their requests. Also Retire, which every sequence
// ends through.
#include <algorithm>

#include "core/infer/inference_request.h"
#include "core/scheduler/sequence_batcher.h"

namespace inferd {

void SequenceBatcher::Retire(Sequence* sequence) {
  if (sequence->slot >= 0) {
    ReleaseSlot(sequence);
  } else {
    std::erase(backlog_, sequence);
  }
  auto found = by_key_.find(sequence->key);
  if (found != by_key_.end() && found->second == sequence) by_key_.erase(found);
  sequences_.erase(sequence->self);
}

std::string SequenceBatcher::StartOwnSequence(InferenceRequest* request) {
  // The backend sees a non-zero id of the batcher's and START, as Triton's;
  // the key keeps these apart from the clients' ids ('n', 's').
  request->correlation_id = next_own_id_++;
  request->flags = INFERD_REQUEST_FLAG_SEQUENCE_START;
  return "i" + std::to_string(request->correlation_id);
}

void SequenceBatcher::Track(InferenceRequest* request, Sequence* sequence) {
  request->rescheduler = this;
  iterating_[request] = sequence;
  ++sequence->live;
}

Status SequenceBatcher::Reschedule(InferenceRequest* request) {
  {
    MutexLock lock(&mu_);
    if (stopping_) {
      return Status::Unavailable("model '" + model_name_ +
                                 "' is shutting down: its request cannot be rescheduled");
    }
    auto found = iterating_.find(request);
    if (found == iterating_.end()) {
      return Status::Internal("model '" + model_name_ +
                              "': a request the sequence batcher does not hold was rescheduled");
    }
    Sequence* sequence = found->second;
    // The control and state inputs of its last execution go; the next
    // execution adds them anew. The client's inputs stay as they are.
    request->RemoveOwnedInputs();
    request->state_sinks.clear();
    request->flags = 0;  // neither START nor END: the sequence goes on
    sequence->queue.push_back(request);
    sequence->last_ns = clock_.NowNs();
    ++queued_;
  }
  changed_.SignalAll();
  return Status::Ok();
}

void SequenceBatcher::Released(InferenceRequest* request) {
  {
    MutexLock lock(&mu_);
    auto found = iterating_.find(request);
    if (found == iterating_.end()) return;
    Sequence* sequence = found->second;
    iterating_.erase(found);
    // An executing sequence is retired by BatchDone, once its batch is done.
    if (--sequence->live > 0 || sequence->in_flight || !sequence->queue.empty()) return;
    Retire(sequence);
  }
  changed_.SignalAll();  // its slot may go to a sequence in the backlog
}

}  // namespace inferd
