// Continuous batching for one model instance: one thread owns the instance's
// llama.cpp context and runs steps. Between two steps it admits queued
// sequences into free slots (llama.cpp sequence ids, `parallel` of them) and
// ends cancelled ones; each step then evaluates, in one llama_decode, the last
// sampled token of every generating sequence plus as much prompt as the batch
// has room for (prompts go in n_batch chunks, so a long prompt never stalls
// the running streams for more than one chunk), samples each sequence whose
// logits came out, and streams its text. A sequence that ends frees its KV
// cache cells and its slot at once. With nothing to do the thread sleeps on a
// condition variable.
//
// Lifetime: one per instance; the destructor stops the thread and ends every
// sequence still open (UNAVAILABLE). Submit is thread-safe.
#ifndef INFERD_BACKENDS_LLAMACPP_DECODE_LOOP_H_
#define INFERD_BACKENDS_LLAMACPP_DECODE_LOOP_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "generation_stats.h"
#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"
#include "llama.h"
#include "sequence.h"

namespace inferd::llamacpp {

class DecodeLoop {
 public:
  // Takes `ctx` (owned; freed by the destructor); `model` outlives the loop.
  DecodeLoop(const llama_model* model, llama_context* ctx, int parallel, int batch_size,
             GenerationStats* stats);
  ~DecodeLoop();
  DecodeLoop(const DecodeLoop&) = delete;
  DecodeLoop& operator=(const DecodeLoop&) = delete;

  // Queues `sequence`; it starts when a slot is free.
  void Submit(std::unique_ptr<Sequence> sequence) EXCLUDES(mu_);

  // Tokens of KV cache each sequence may use.
  int ContextPerSequence() const { return context_per_sequence_; }

 private:
  void Run() EXCLUDES(mu_);
  // Waits for work; moves queued sequences into free slots. False on stop.
  bool Admit() EXCLUDES(mu_);
  // Ends and drops the cancelled sequences.
  void DropCancelled();
  // Fills batch_ for one step; false when it holds nothing.
  bool BuildBatch();
  // Samples every sequence that got logits; drops those that ended.
  void SampleAll();
  // Fails every active sequence with `message` (llama_decode refused the batch).
  void FailAll(const std::string& message);
  void Release(size_t index);
  // The gauges: sequences running and queued, KV cache cells in use.
  void PublishStats() EXCLUDES(mu_);

  const llama_vocab* vocab_;
  llama_context* ctx_;  // owned
  llama_memory_t memory_;
  const int batch_capacity_;
  const int context_per_sequence_;
  GenerationStats* stats_;
  llama_batch batch_;
  std::vector<std::unique_ptr<Sequence>> active_;  // the loop thread's only
  std::vector<llama_seq_id> free_slots_;           // the loop thread's only

  Mutex mu_;
  CondVar wake_;  // a sequence was queued, or the loop stops
  std::deque<std::unique_ptr<Sequence>> queued_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_DECODE_LOOP_H_
