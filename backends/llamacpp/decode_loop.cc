#include "decode_loop.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace inferd::llamacpp {

namespace {

double Seconds(Sequence::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

DecodeLoop::DecodeLoop(const llama_model* model, llama_context* ctx, int parallel,
                       int batch_size, GenerationStats* stats)
    : vocab_(llama_model_get_vocab(model)),
      ctx_(ctx),
      memory_(llama_get_memory(ctx)),
      batch_capacity_(std::max(batch_size, parallel)),
      context_per_sequence_(static_cast<int>(llama_n_ctx_seq(ctx))),
      stats_(stats),
      batch_(llama_batch_init(batch_capacity_, 0, 1)) {
  for (int slot = parallel - 1; slot >= 0; --slot) free_slots_.push_back(slot);
  if (stats_) stats_->KvCache(0, llama_n_ctx(ctx_));
  thread_ = std::thread([this] { Run(); });
}

DecodeLoop::~DecodeLoop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  thread_.join();
  // Sequences still open end UNAVAILABLE as they are destroyed.
  active_.clear();
  {
    MutexLock lock(&mu_);
    queued_.clear();
  }
  llama_batch_free(batch_);
  llama_free(ctx_);
}

void DecodeLoop::Submit(std::unique_ptr<Sequence> sequence) {
  {
    MutexLock lock(&mu_);
    queued_.push_back(std::move(sequence));
  }
  wake_.Signal();
}

void DecodeLoop::Run() {
  while (Admit()) {
    DropCancelled();
    if (!BuildBatch()) {
      PublishStats();  // every sequence was cancelled: the loop goes idle
      continue;
    }
    const int32_t status = llama_decode(ctx_, batch_);
    if (status != 0) {
      FailAll("llama_decode failed (status " + std::to_string(status) + ")");
      continue;
    }
    SampleAll();
    PublishStats();
  }
}

bool DecodeLoop::Admit() {
  MutexLock lock(&mu_);
  while (!stopping_ && active_.empty() && queued_.empty()) wake_.Wait(&mu_);
  if (stopping_) return false;
  while (!queued_.empty() && !free_slots_.empty()) {
    std::unique_ptr<Sequence> sequence = std::move(queued_.front());
    queued_.pop_front();
    sequence->slot = free_slots_.back();
    free_slots_.pop_back();
    if (stats_) stats_->PromptTokens(sequence->prompt_tokens());
    active_.push_back(std::move(sequence));
  }
  return true;
}

void DecodeLoop::DropCancelled() {
  for (size_t i = active_.size(); i-- > 0;) {
    Sequence& sequence = *active_[i];
    if (!sequence.Cancelled()) continue;
    sequence.Fail(INFERD_ERROR_CANCELLED, "the request was cancelled");
    if (stats_ && sequence.generated() > 0) {
      stats_->SequenceEnded(sequence.generated(),
                            Seconds(sequence.last_token_at - sequence.first_token_at));
    }
    Release(i);
  }
}

bool DecodeLoop::BuildBatch() {
  batch_.n_tokens = 0;
  auto add = [this](llama_token token, llama_pos pos, llama_seq_id seq, bool logits) {
    const int32_t i = batch_.n_tokens++;
    batch_.token[i] = token;
    batch_.pos[i] = pos;
    batch_.n_seq_id[i] = 1;
    batch_.seq_id[i][0] = seq;
    batch_.logits[i] = logits;
    return i;
  };
  // Generating sequences first, one token each: a running stream never waits
  // for a whole prompt, only for the chunk that shares its step.
  for (auto& sequence : active_) {
    sequence->batch_index = -1;
    if (sequence->InPrompt()) continue;
    sequence->batch_index = add(sequence->LastToken(), sequence->position(), sequence->slot, true);
    sequence->FedLastToken();
  }
  for (auto& sequence : active_) {
    if (!sequence->InPrompt()) continue;
    const int room = batch_capacity_ - batch_.n_tokens;
    if (room <= 0) break;
    const size_t take = std::min<size_t>(static_cast<size_t>(room), sequence->PromptLeft());
    const bool last_chunk = take == sequence->PromptLeft();
    const llama_token* tokens = sequence->NextPromptTokens();
    for (size_t t = 0; t < take; ++t) {
      const bool logits = last_chunk && t + 1 == take;
      const int32_t i = add(tokens[t], sequence->position() + static_cast<llama_pos>(t), sequence->slot, logits);
      if (logits) sequence->batch_index = i;
    }
    sequence->FedPrompt(take);
  }
  return batch_.n_tokens > 0;
}

void DecodeLoop::SampleAll() {
  const auto now = Sequence::Clock::now();
  for (size_t i = active_.size(); i-- > 0;) {
    Sequence& sequence = *active_[i];
    if (sequence.batch_index < 0) continue;
    const bool first = sequence.generated() == 0;
    const auto previous = sequence.last_token_at;
    const int context_left = context_per_sequence_ - sequence.position();
    const Sequence::Outcome outcome = sequence.Sample(ctx_, vocab_, context_left);
    if (stats_) {
      if (first) stats_->FirstToken(Seconds(now - sequence.queued_at));
      else stats_->NextToken(Seconds(now - previous));
    }
    sequence.last_token_at = now;
    if (outcome == Sequence::Outcome::kEnded) {
      if (stats_) stats_->SequenceEnded(sequence.generated(), Seconds(now - sequence.first_token_at));
      Release(i);
    }
  }
}

void DecodeLoop::FailAll(const std::string& message) {
  for (size_t i = active_.size(); i-- > 0;) {
    active_[i]->Fail(INFERD_ERROR_INTERNAL, message);
    Release(i);
  }
}

void DecodeLoop::Release(size_t index) {
  const llama_seq_id slot = active_[index]->slot;
  llama_memory_seq_rm(memory_, slot, -1, -1);
  free_slots_.push_back(slot);
  active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(index));
}

void DecodeLoop::PublishStats() {
  if (!stats_) return;
  size_t queued = 0;
  {
    MutexLock lock(&mu_);
    queued = queued_.size();
  }
  stats_->Sequences(static_cast<double>(active_.size()), static_cast<double>(queued));
  double used = 0;
  for (const auto& sequence : active_) used += sequence->position();
  stats_->KvCache(used, llama_n_ctx(ctx_));
}

}  // namespace inferd::llamacpp
