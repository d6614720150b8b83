// The sequence batcher: for stateful models, every request of a sequence (one
// correlation id, from a START to an END) reaches the same batch slot, one at a
// time and in arrival order, with control inputs (START, END, READY, CORRID)
// that say where it stands. Two strategies, as Triton's:
//  - direct: each instance has max_batch_size slots (1 when not batching); a
//    sequence holds one slot; a batch has one row per slot up to the highest
//    slot with work, empty slots padded with rows whose READY is false;
//  - oldest: max_candidate_sequences sequences hold a place; any free instance
//    batches the oldest waiting requests of different sequences.
// Sequences beyond the free slots wait in a backlog, in START order. A
// sequence idle for max_sequence_idle_microseconds loses its slot: the backend
// gets one last request marked END, and a later request for it must START
// again.
//
// Iterative sequences (iterative_sequence: true; sequence_batcher_iterative.cc):
// a request without a sequence id starts a sequence of its own (an id the
// batcher makes up, START on its first execution); the backend may release
// any request with RESCHEDULE, which queues it again in its slot, and the
// sequence ends, freeing its slot, when its requests are released for good.
// Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_SEQUENCE_BATCHER_H_
#define INFERD_CORE_SCHEDULER_SEQUENCE_BATCHER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/infer/request_rescheduler.h"
#include "core/scheduler/batch_rules.h"
#include "core/scheduler/scheduler.h"
#include "core/scheduler/sequence_controls.h"
#include "core/scheduler/sequence_states.h"
#include "core/timing/clock.h"
#include "inferd/base/mutex.h"
#include "model_config.pb.h"

namespace inferd {

class SequenceBatcher : public Scheduler, public BatchSource, public RequestRescheduler {
 public:
  // Schedules onto `instance_count` instances (indexes 0 .. count-1) by
  // `config`'s sequence_batching; times idleness and queue delays on `clock`.
  SequenceBatcher(const inference::ModelConfig& config, size_t instance_count,
                  const Clock& clock, SequenceStates states = {});
  ~SequenceBatcher() override;

  Status Enqueue(InferenceRequest* request) override EXCLUDES(mu_);
  size_t InflightCount() const override EXCLUDES(mu_);
  size_t QueuedCount() const override EXCLUDES(mu_);
  void Stop() override EXCLUDES(mu_);

  bool NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) override EXCLUDES(mu_);
  void BatchDone(size_t instance, size_t request_count) override EXCLUDES(mu_);

  // RequestRescheduler (iterative sequences only).
  Status Reschedule(InferenceRequest* request) override EXCLUDES(mu_);
  void Released(InferenceRequest* request) override EXCLUDES(mu_);

 private:
  // One live sequence: its id, its requests waiting, its slot.
  struct Sequence {
    std::list<Sequence>::iterator self;
    std::string key;
    SequenceSignals id;  // correlation id only
    std::deque<InferenceRequest*> queue;  // client requests, then maybe idle_end
    std::unique_ptr<InferenceRequest> idle_end;  // queued once the sequence went idle
    int64_t slot = -1;                            // -1: in the backlog
    bool in_flight = false;
    bool expired = false;     // idle: out of by_key_, its END queued
    bool end_queued = false;  // a request with END waits or runs; only a START may follow
    uint64_t last_ns = 0;     // the last arrival or completion
    size_t live = 0;          // iterative: its requests not yet released
    // What the last request looked like, to shape the END an idle sequence gets.
    std::vector<InputTensor> last_inputs;
    std::shared_ptr<const std::vector<std::string>> last_outputs;
    uint64_t last_batch_size = 0;
    std::vector<std::string> state;  // implicit state values, by SequenceStates spec
  };
  // A request handed to an instance, and whether it ended its sequence.
  struct Dispatched {
    Sequence* sequence;
    bool ends;
  };

  // Sequences ready to run on `instance`, in the order their rows go.
  std::vector<Sequence*> ReadyFor(size_t instance) REQUIRES(mu_);
  bool ShouldSend(const std::vector<Sequence*>& ready, uint64_t now, uint64_t* wake)
      REQUIRES(mu_);
  void Fill(size_t instance, const std::vector<Sequence*>& ready,
            std::vector<InferenceRequest*>* batch) REQUIRES(mu_);
  InferenceRequest* Take(size_t instance, Sequence* sequence) REQUIRES(mu_);
  // Gives `request` the state inputs (the sequence's, or initial values when
  // `sequence` is null or starts) and, for a sequence, keeps its state outputs.
  void AddStates(InferenceRequest* request, Sequence* sequence, bool start) REQUIRES(mu_);
  // Whether `name` is an input the batcher adds (control or state).
  bool IsAdded(const std::string& name) const;
  // A request the batcher owns (padding, or an idle sequence's END), shaped
  // like `inputs`, with control values `signals`.
  InferenceRequest* MakeSynthetic(size_t instance, const InferenceRequest& like,
                                  bool ready, bool end, const Sequence* sequence) REQUIRES(mu_);
  // Moves idle sequences out: their END is queued. Returns the next time one
  // may go idle (0: none).
  uint64_t ExpireIdle(uint64_t now) REQUIRES(mu_);
  void AssignSlot(Sequence* sequence) REQUIRES(mu_);
  void ReleaseSlot(Sequence* sequence) REQUIRES(mu_);
  // The sequence is over: its slot (or backlog place) goes, and it is forgotten.
  void Retire(Sequence* sequence) REQUIRES(mu_);
  // Iterative sequences: gives a request without an id a sequence of its own
  // (the key it goes by); tracks a queued request so its backend may
  // reschedule it.
  std::string StartOwnSequence(InferenceRequest* request) REQUIRES(mu_);
  void Track(InferenceRequest* request, Sequence* sequence) REQUIRES(mu_);
  size_t InstanceOfSlot(size_t slot) const;

  // Constant after construction.
  const Clock& clock_;
  const std::string model_name_;
  const SequenceControls controls_;
  const SequenceStates states_;
  const bool oldest_;
  const size_t slots_per_instance_;  // direct
  const size_t instance_count_;
  const uint64_t idle_ns_;
  const uint64_t max_queue_delay_ns_;
  const double minimum_slot_utilization_;  // direct
  const bool iterative_;
  BatchRules rules_;                       // oldest

  mutable Mutex mu_;
  CondVar changed_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::list<Sequence> sequences_ GUARDED_BY(mu_);  // every live one; stable addresses
  std::unordered_map<std::string, Sequence*> by_key_ GUARDED_BY(mu_);  // not expired
  std::vector<Sequence*> slots_ GUARDED_BY(mu_);      // null: free
  std::deque<Sequence*> backlog_ GUARDED_BY(mu_);     // waiting for a slot, START order
  std::vector<std::vector<Dispatched>> dispatched_ GUARDED_BY(mu_);  // by instance
  // Padding and END requests the batcher made, in flight, by instance.
  std::vector<std::vector<std::unique_ptr<InferenceRequest>>> owned_ GUARDED_BY(mu_);
  size_t queued_ GUARDED_BY(mu_) = 0;  // client requests waiting
  // Iterative: the sequence of each request not yet released, and the next
  // id for a sequence the batcher starts.
  std::unordered_map<InferenceRequest*, Sequence*> iterating_ GUARDED_BY(mu_);
  uint64_t next_own_id_ GUARDED_BY(mu_) = 1;
  std::atomic<size_t> executing_{0};
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_SEQUENCE_BATCHER_H_
