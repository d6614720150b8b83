// One request being generated: its prompt tokens, how far the decode loop
// has fed them, its sampler chain, its text so far, and the response sender
// its chunks go out on. The decode loop owns it from admission to its end.
//
// Lifetime: owns the sampler and the response sender (deleted with the
// sequence; FINAL is always sent before, by Finish or Fail). Not thread-safe:
// the decode loop's thread only (or execute's, before it is queued).
#ifndef INFERD_BACKENDS_LLAMACPP_SEQUENCE_H_
#define INFERD_BACKENDS_LLAMACPP_SEQUENCE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "generation_request.h"
#include "inferd/backend.h"
#include "llama.h"
#include "text_stream.h"

namespace inferd::llamacpp {

// Which outputs the model's configuration declares, so only those are added.
struct DeclaredOutputs {
  bool finish_reason = false;
  bool num_input_tokens = false;
  bool num_output_tokens = false;
};

class Sequence {
 public:
  using Clock = std::chrono::steady_clock;

  Sequence(GenerationRequest request, std::vector<llama_token> prompt, llama_sampler* sampler,
           INFERD_ResponseSender* sender, const DeclaredOutputs& outputs);
  ~Sequence();
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  bool Cancelled() const;

  // Prompt processing: tokens not yet fed to the model.
  bool InPrompt() const { return fed_ < prompt_.size(); }
  size_t PromptLeft() const { return prompt_.size() - fed_; }
  const llama_token* NextPromptTokens() const { return prompt_.data() + fed_; }
  // Marks `count` prompt tokens as fed at positions from position().
  void FedPrompt(size_t count);
  // The token sampled last, fed at position() in the next step.
  llama_token LastToken() const { return last_token_; }
  void FedLastToken() { ++position_; }
  llama_pos position() const { return position_; }
  size_t prompt_tokens() const { return prompt_.size(); }

  // Where the sequence's logits are in the batch being decoded (-1: none).
  int32_t batch_index = -1;
  llama_seq_id slot = 0;

  // What a sampled token does to the sequence.
  enum class Outcome { kContinue, kEnded };
  // Samples the next token from the batch's logits at batch_index, sends
  // what became safe to send, and ends the sequence (FINAL) on an end token,
  // a stop string, max_tokens, or when `context_left` is 0.
  Outcome Sample(llama_context* ctx, const llama_vocab* vocab, int context_left);

  // Ends the request with `code` and `message` (FINAL); for cancellations,
  // decode errors and unloads.
  void Fail(INFERD_Error_Code code, const std::string& message);

  // Per-sequence timings for the statistics.
  Clock::time_point queued_at = Clock::now();
  Clock::time_point first_token_at{};
  Clock::time_point last_token_at{};
  int generated() const { return generated_; }

 private:
  void Finish(const char* reason, std::string text);
  // One response: `text` (with the prompt first for a whole, non-excluded
  // answer), and the counts and finish reason the request asked for.
  void Send(const std::string& text, const char* finish_reason, bool final);
  INFERD_Error* AddOutputs(INFERD_Response* response, const std::string& text,
                           const char* finish_reason, bool final);

  const GenerationRequest request_;
  const std::vector<llama_token> prompt_;
  llama_sampler* sampler_;         // owned
  INFERD_ResponseSender* sender_;  // owned
  const DeclaredOutputs outputs_;
  TextStream text_;
  std::string whole_;  // the text so far, for a request that does not stream
  size_t fed_ = 0;
  llama_pos position_ = 0;
  llama_token last_token_ = 0;
  int generated_ = 0;
  int unsent_tokens_ = 0;  // tokens since the last response (num_output_tokens)
  bool ended_ = false;
  bool sent_input_count_ = false;
};

// The sampler chain `options` ask for (llama.cpp's, in llama-server's order:
// penalties, top-k, top-p, min-p, temperature, then a draw with the seed;
// greedy when temperature <= 0). `vocab` for the penalties' window.
llama_sampler* MakeSampler(const SamplingOptions& options, uint32_t default_seed,
                           const llama_vocab* vocab);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_SEQUENCE_H_
