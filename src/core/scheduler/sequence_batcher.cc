#include "core/scheduler/sequence_batcher.h"

#include <algorithm>

#include "core/common/logging.h"
#include "core/infer/inference_request.h"

namespace inferd {

namespace {

// Numbers and strings are different ids: "7" and 7 are two sequences.
std::string SequenceKey(const InferenceRequest& request) {
  std::string key(1, request.correlation_id_string.empty() ? 'n' : 's');
  key += request.correlation_id_string.empty() ? std::to_string(request.correlation_id)
                                               : request.correlation_id_string;
  return key;
}

std::string DisplayId(const InferenceRequest& request) {
  return request.correlation_id_string.empty() ? std::to_string(request.correlation_id)
                                               : "'" + request.correlation_id_string + "'";
}

uint64_t ElementCount(const std::vector<int64_t>& shape) {
  uint64_t count = 1;
  for (int64_t dim : shape) count *= static_cast<uint64_t>(std::max<int64_t>(dim, 0));
  return count;
}

// Zero-filled inputs shaped like `like` (BYTES: empty strings), but for
// those `skip` names (the ones the batcher adds itself).
template <typename Skip>
std::unique_ptr<InferenceRequest> ZeroRequest(const std::string& model,
                                              const std::vector<InputTensor>& like, Skip&& skip) {
  auto request = std::make_unique<InferenceRequest>(model, -1);
  for (const InputTensor& input : like) {
    if (skip(input.name)) continue;
    const uint64_t bytes = input.datatype == INFERD_TYPE_BYTES
                               ? 4 * ElementCount(input.shape)
                               : input.byte_size;
    Status added = request->AddOwnedInput(input.name, input.datatype, input.shape,
                                          std::string(bytes, '\0'));
    (void)added;  // names are unique: they come from a valid request
  }
  request->counts_in_stats = false;
  return request;
}

}  // namespace

SequenceBatcher::SequenceBatcher(const inference::ModelConfig& config, size_t instance_count,
                                 const Clock& clock, SequenceStates states)
    : clock_(clock),
      model_name_(config.name()),
      controls_(config),
      states_(std::move(states)),
      oldest_(config.sequence_batching().has_oldest()),
      slots_per_instance_(std::max<int64_t>(1, config.max_batch_size())),
      instance_count_(std::max<size_t>(1, instance_count)),
      idle_ns_(config.sequence_batching().max_sequence_idle_microseconds() * 1000),
      max_queue_delay_ns_((oldest_ ? config.sequence_batching().oldest().max_queue_delay_microseconds()
                                   : config.sequence_batching().direct().max_queue_delay_microseconds()) *
                          1000),
      minimum_slot_utilization_(config.sequence_batching().direct().minimum_slot_utilization()),
      iterative_(config.sequence_batching().iterative_sequence()) {
  size_t slot_count = slots_per_instance_ * instance_count_;
  if (oldest_) {
    const auto& oldest = config.sequence_batching().oldest();
    slot_count = oldest.max_candidate_sequences() > 0
                     ? static_cast<size_t>(oldest.max_candidate_sequences())
                     : slots_per_instance_;
    rules_.max_batch_size = static_cast<int64_t>(slots_per_instance_);
    for (int32_t size : oldest.preferred_batch_size()) {
      if (size <= rules_.max_batch_size) rules_.preferred_sizes.push_back(size);
    }
    std::sort(rules_.preferred_sizes.begin(), rules_.preferred_sizes.end());
  }
  slots_.assign(slot_count, nullptr);
  dispatched_.resize(instance_count_);
  owned_.resize(instance_count_);
}

SequenceBatcher::~SequenceBatcher() { Stop(); }

size_t SequenceBatcher::InstanceOfSlot(size_t slot) const { return slot / slots_per_instance_; }

bool SequenceBatcher::IsAdded(const std::string& name) const {
  if (controls_.IsControl(name)) return true;
  for (const StateSpec& spec : states_.specs()) {
    if (spec.input_name == name) return true;
  }
  return false;
}

void SequenceBatcher::AddStates(InferenceRequest* request, Sequence* sequence, bool start) {
  if (states_.empty()) return;
  const std::vector<StateSpec>& specs = states_.specs();
  if (sequence != nullptr && (start || sequence->state.size() != specs.size())) {
    sequence->state.clear();
    for (const StateSpec& spec : specs) sequence->state.push_back(spec.initial);
  }
  auto outputs = std::make_shared<std::vector<std::string>>();
  if (request->outputs) *outputs = *request->outputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    const StateSpec& spec = specs[i];
    std::vector<int64_t> shape = spec.dims;
    if (request->batch_size > 0) shape.insert(shape.begin(), 1);
    const std::string& value = sequence != nullptr ? sequence->state[i] : spec.initial;
    if (Status s = request->AddOwnedInput(spec.input_name, spec.datatype, shape, value); !s.ok()) {
      LOG_ERROR("model '{}': adding state input: {}", model_name_, s.message());
    }
    if (sequence != nullptr) {
      request->state_sinks.push_back({spec.output_name, &sequence->state[i], spec.initial.size()});
    }
    if (std::find(outputs->begin(), outputs->end(), spec.output_name) == outputs->end()) {
      outputs->push_back(spec.output_name);  // so the backend computes it
    }
  }
  request->outputs = std::move(outputs);
}

Status SequenceBatcher::Enqueue(InferenceRequest* request) {
  const bool has_id = request->correlation_id != 0 || !request->correlation_id_string.empty();
  if (!has_id && !iterative_) {
    return Status::InvalidArg("model '" + model_name_ +
                              "' has a sequence batcher: every request must carry a "
                              "sequence_id (a non-zero number or a non-empty string)");
  }
  {
    MutexLock lock(&mu_);
    if (stopping_) return Status::Unavailable("model '" + model_name_ + "' is shutting down");
    const std::string key = has_id ? SequenceKey(*request) : StartOwnSequence(request);
    const bool start = (request->flags & INFERD_REQUEST_FLAG_SEQUENCE_START) != 0;
    auto found = by_key_.find(key);
    Sequence* sequence = found == by_key_.end() ? nullptr : found->second;
    if (sequence == nullptr && !start) {
      return Status::InvalidArg(
          "model '" + model_name_ + "': sequence " + DisplayId(*request) +
          " is not active, so its request must carry sequence_start (it never started, "
          "ended, was idle longer than max_sequence_idle_microseconds, or the model was "
          "reloaded since)");
    }
    if (sequence != nullptr && sequence->end_queued && !start) {
      return Status::InvalidArg("model '" + model_name_ + "': sequence " + DisplayId(*request) +
                                " already got sequence_end; a new sequence with that id must "
                                "begin with sequence_start");
    }
    if (sequence == nullptr) {
      sequence = &sequences_.emplace_back();
      sequence->self = std::prev(sequences_.end());
      sequence->key = key;
      sequence->id.correlation_id = request->correlation_id;
      sequence->id.correlation_id_string = request->correlation_id_string;
      by_key_[key] = sequence;
      AssignSlot(sequence);
    } else if (start && !sequence->end_queued) {
      LOG_WARNING("model '{}': sequence {} started again before it ended; the new sequence "
                  "follows the requests already queued for it, in the same slot",
                  model_name_, DisplayId(*request));
    }
    if (start) sequence->end_queued = false;
    if (request->flags & INFERD_REQUEST_FLAG_SEQUENCE_END) sequence->end_queued = true;
    sequence->queue.push_back(request);
    sequence->last_ns = clock_.NowNs();
    ++queued_;
    if (iterative_) Track(request, sequence);
  }
  changed_.SignalAll();
  return Status::Ok();
}

void SequenceBatcher::AssignSlot(Sequence* sequence) {
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    if (slots_[slot] == nullptr) {
      slots_[slot] = sequence;
      sequence->slot = static_cast<int64_t>(slot);
      return;
    }
  }
  backlog_.push_back(sequence);
}

void SequenceBatcher::ReleaseSlot(Sequence* sequence) {
  const size_t slot = static_cast<size_t>(sequence->slot);
  slots_[slot] = nullptr;
  sequence->slot = -1;
  if (backlog_.empty()) return;
  Sequence* next = backlog_.front();
  backlog_.pop_front();
  slots_[slot] = next;
  next->slot = static_cast<int64_t>(slot);
}

size_t SequenceBatcher::QueuedCount() const {
  MutexLock lock(&mu_);
  return queued_;
}

size_t SequenceBatcher::InflightCount() const {
  MutexLock lock(&mu_);
  return queued_ + executing_.load(std::memory_order_relaxed);
}

std::vector<SequenceBatcher::Sequence*> SequenceBatcher::ReadyFor(size_t instance) {
  std::vector<Sequence*> ready;
  const size_t first = oldest_ ? 0 : instance * slots_per_instance_;
  const size_t end = oldest_ ? slots_.size() : first + slots_per_instance_;
  for (size_t slot = first; slot < end && slot < slots_.size(); ++slot) {
    Sequence* sequence = slots_[slot];
    if (sequence != nullptr && !sequence->in_flight && !sequence->queue.empty()) {
      ready.push_back(sequence);
    }
  }
  if (oldest_) {
    std::stable_sort(ready.begin(), ready.end(), [](const Sequence* a, const Sequence* b) {
      return a->queue.front()->QueuedSinceNs() < b->queue.front()->QueuedSinceNs();
    });
  }
  return ready;
}

bool SequenceBatcher::ShouldSend(const std::vector<Sequence*>& ready, uint64_t now,
                                 uint64_t* wake) {
  if (ready.empty()) return false;
  uint64_t oldest = ready.front()->queue.front()->QueuedSinceNs();
  for (const Sequence* sequence : ready) {
    oldest = std::min(oldest, sequence->queue.front()->QueuedSinceNs());
  }
  const bool delay_expired = stopping_ || now >= oldest + max_queue_delay_ns_;
  if (oldest_) {
    const std::vector<int64_t> rows(ready.size(), 1);
    if (ChooseBatch(rows, ready.size(), rules_, delay_expired).send_now) return true;
  } else {
    // Direct: go with every slot ready, with enough of them ready, or once the
    // oldest ready request waited the queue delay.
    const double used = static_cast<double>(ready.size()) / slots_per_instance_;
    if (delay_expired || ready.size() == slots_per_instance_ ||
        (minimum_slot_utilization_ > 0 && used >= minimum_slot_utilization_)) {
      return true;
    }
  }
  *wake = oldest + max_queue_delay_ns_;
  return false;
}

InferenceRequest* SequenceBatcher::Take(size_t instance, Sequence* sequence) {
  InferenceRequest* request = sequence->queue.front();
  sequence->queue.pop_front();
  const bool synthetic = sequence->idle_end && request == sequence->idle_end.get();
  bool ends = (request->flags & INFERD_REQUEST_FLAG_SEQUENCE_END) != 0;
  if (synthetic) {
    owned_[instance].push_back(std::move(sequence->idle_end));
    ends = true;
  } else {
    --queued_;
    sequence->last_inputs = request->inputs();
    AddStates(request, sequence, (request->flags & INFERD_REQUEST_FLAG_SEQUENCE_START) != 0);
    for (InputTensor& input : sequence->last_inputs) input.buffers.clear();
    sequence->last_outputs = request->outputs;
    sequence->last_batch_size = request->batch_size;
    SequenceSignals signals = sequence->id;
    signals.start = (request->flags & INFERD_REQUEST_FLAG_SEQUENCE_START) != 0;
    signals.end = ends;
    if (Status s = controls_.AddTo(request, signals); !s.ok()) {
      LOG_ERROR("model '{}': adding control inputs: {}", model_name_, s.message());
    }
  }
  sequence->in_flight = true;
  // An iterative sequence ends when its requests are released, not at END.
  dispatched_[instance].push_back({sequence, ends && !iterative_});
  return request;
}

InferenceRequest* SequenceBatcher::MakeSynthetic(size_t instance, const InferenceRequest& like,
                                                 bool ready, bool end,
                                                 const Sequence* sequence) {
  std::unique_ptr<InferenceRequest> made =
      ZeroRequest(model_name_, like.inputs(), [this](const std::string& n) { return IsAdded(n); });
  made->outputs = like.outputs;
  made->batch_size = like.batch_size;
  AddStates(made.get(), nullptr, false);
  made->queue_start_ns = clock_.NowNs();
  SequenceSignals signals;
  if (sequence != nullptr) signals = sequence->id;
  signals.ready = ready;
  signals.end = end;
  Status added = controls_.AddTo(made.get(), signals);
  (void)added;  // a fresh request has none of the control inputs yet
  owned_[instance].push_back(std::move(made));
  return owned_[instance].back().get();
}

void SequenceBatcher::Fill(size_t instance, const std::vector<Sequence*>& ready,
                           std::vector<InferenceRequest*>* batch) {
  if (oldest_) {
    const std::vector<int64_t> rows(ready.size(), 1);
    const size_t count = ChooseBatch(rows, ready.size(), rules_, true).request_count;
    for (size_t i = 0; i < count && i < ready.size(); ++i) {
      batch->push_back(Take(instance, ready[i]));
    }
    return;
  }
  // Direct: one row per slot up to the highest ready one; the gaps are padding.
  size_t rows = 0;
  for (const Sequence* sequence : ready) {
    rows = std::max(rows, static_cast<size_t>(sequence->slot) % slots_per_instance_ + 1);
  }
  batch->assign(rows, nullptr);
  InferenceRequest* real = nullptr;
  for (Sequence* sequence : ready) {
    real = Take(instance, sequence);
    (*batch)[static_cast<size_t>(sequence->slot) % slots_per_instance_] = real;
  }
  for (InferenceRequest*& row : *batch) {
    if (row == nullptr) row = MakeSynthetic(instance, *real, /*ready=*/false, false, nullptr);
  }
}

uint64_t SequenceBatcher::ExpireIdle(uint64_t now) {
  // An iterative sequence is never idle: it lives while its backend holds or
  // reschedules its request, and ends as soon as it released it.
  if (iterative_) return 0;
  uint64_t next = 0;
  for (Sequence* sequence : slots_) {
    if (sequence == nullptr || sequence->expired || sequence->in_flight ||
        !sequence->queue.empty() || sequence->last_inputs.empty()) {
      continue;
    }
    const uint64_t deadline = sequence->last_ns + idle_ns_;
    if (now < deadline) {
      next = next == 0 ? deadline : std::min(next, deadline);
      continue;
    }
    sequence->expired = true;
    by_key_.erase(sequence->key);
    InferenceRequest like(model_name_, -1);
    for (const InputTensor& input : sequence->last_inputs) {
      Status added = like.AddInput(input.name, input.datatype, input.shape.data(),
                                   input.shape.size());
      (void)added;
      like.FindInput(input.name)->byte_size = input.byte_size;
    }
    std::unique_ptr<InferenceRequest> end =
        ZeroRequest(model_name_, like.inputs(), [this](const std::string& n) { return IsAdded(n); });
    end->outputs = sequence->last_outputs;
    end->batch_size = sequence->last_batch_size;
    AddStates(end.get(), sequence, false);
    end->queue_start_ns = now;
    SequenceSignals signals = sequence->id;
    signals.end = true;
    Status added = controls_.AddTo(end.get(), signals);
    (void)added;
    sequence->queue.push_back(end.get());
    sequence->idle_end = std::move(end);
    LOG_INFO("model '{}': sequence {} was idle for {} us: it ends and frees its slot",
             model_name_,
             sequence->id.correlation_id_string.empty()
                 ? std::to_string(sequence->id.correlation_id)
                 : "'" + sequence->id.correlation_id_string + "'",
             idle_ns_ / 1000);
  }
  return next;
}

bool SequenceBatcher::NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) {
  MutexLock lock(&mu_);
  while (true) {
    if (stopping_) return false;
    const uint64_t now = clock_.NowNs();
    uint64_t wake = ExpireIdle(now);
    std::vector<Sequence*> ready = ReadyFor(instance);
    uint64_t delay_wake = 0;
    if (ShouldSend(ready, now, &delay_wake)) {
      Fill(instance, ready, batch);
      executing_.fetch_add(batch->size(), std::memory_order_relaxed);
      lock.Unlock();
      changed_.SignalAll();  // an expiry or a backlog move may concern other instances
      return true;
    }
    if (delay_wake != 0) wake = wake == 0 ? delay_wake : std::min(wake, delay_wake);
    if (wake == 0) {
      changed_.Wait(&mu_);
    } else {
      clock_.WaitUntil(&changed_, &mu_, wake);
    }
  }
}

void SequenceBatcher::BatchDone(size_t instance, size_t request_count) {
  std::vector<std::unique_ptr<InferenceRequest>> finished;
  {
    MutexLock lock(&mu_);
    const uint64_t now = clock_.NowNs();
    for (const Dispatched& done : dispatched_[instance]) {
      Sequence* sequence = done.sequence;
      sequence->in_flight = false;
      sequence->last_ns = now;
      const bool over = done.ends || (iterative_ && sequence->live == 0);
      // The sequence ended and nothing follows it: its slot goes to the backlog.
      if (over && sequence->queue.empty()) Retire(sequence);
    }
    dispatched_[instance].clear();
    finished.swap(owned_[instance]);
    executing_.fetch_sub(request_count, std::memory_order_relaxed);
  }
  changed_.SignalAll();
}

void SequenceBatcher::Stop() {
  std::vector<InferenceRequest*> abandoned;
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    for (Sequence& sequence : sequences_) {
      for (InferenceRequest* request : sequence.queue) {
        if (request != sequence.idle_end.get()) abandoned.push_back(request);
      }
      sequence.queue.clear();
      sequence.idle_end.reset();
    }
    backlog_.clear();
    queued_ = 0;
  }
  changed_.SignalAll();
  for (InferenceRequest* request : abandoned) {
    request->RespondWithError(Status::Unavailable(
        "request for model '" + request->model_name() +
        "' was dropped: the model was unloaded before it could run"));
    request->Release();
  }
}

}  // namespace inferd
