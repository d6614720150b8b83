#include "sequence.h"

#include <cstring>
#include <random>
#include <utility>

#include "common/bytes_elements.h"

namespace inferd::llamacpp {

namespace bc = inferd::backend_common;

llama_sampler* MakeSampler(const SamplingOptions& options, uint32_t default_seed,
                           const llama_vocab* vocab) {
  llama_sampler_chain_params params = llama_sampler_chain_default_params();
  params.no_perf = true;
  llama_sampler* chain = llama_sampler_chain_init(params);
  if (options.repetition_penalty != 1.0f || options.frequency_penalty != 0.0f ||
      options.presence_penalty != 0.0f) {
    // The last 64 tokens, as llama-server's default repeat_last_n.
    llama_sampler_chain_add(chain, llama_sampler_init_penalties(
                                       llama_vocab_n_tokens(vocab), 64, options.repetition_penalty, options.frequency_penalty,
                                       options.presence_penalty));
  }
  if (options.temperature <= 0.0f) {
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    return chain;
  }
  if (options.top_k > 0) llama_sampler_chain_add(chain, llama_sampler_init_top_k(options.top_k));
  if (options.top_p < 1.0f) llama_sampler_chain_add(chain, llama_sampler_init_top_p(options.top_p, 1));
  if (options.min_p > 0.0f) llama_sampler_chain_add(chain, llama_sampler_init_min_p(options.min_p, 1));
  llama_sampler_chain_add(chain, llama_sampler_init_temp(options.temperature));
  llama_sampler_chain_add(chain, llama_sampler_init_dist(options.seed.value_or(default_seed)));
  return chain;
}

Sequence::Sequence(GenerationRequest request, std::vector<llama_token> prompt,
                   llama_sampler* sampler, INFERD_ResponseSender* sender,
                   const DeclaredOutputs& outputs)
    : request_(std::move(request)),
      prompt_(std::move(prompt)),
      sampler_(sampler),
      sender_(sender),
      outputs_(outputs),
      text_(request_.sampling.stop) {}

Sequence::~Sequence() {
  if (!ended_) Fail(INFERD_ERROR_UNAVAILABLE, "the model was unloaded before the generation ended");
  llama_sampler_free(sampler_);
  INFERD_ErrorDelete(INFERD_ResponseSenderDelete(sender_));
}

bool Sequence::Cancelled() const {
  bool cancelled = false;
  INFERD_ErrorDelete(INFERD_ResponseSenderIsCancelled(sender_, &cancelled));
  return cancelled;
}

void Sequence::FedPrompt(size_t count) {
  fed_ += count;
  position_ += static_cast<llama_pos>(count);
}

Sequence::Outcome Sequence::Sample(llama_context* ctx, const llama_vocab* vocab, int context_left) {
  const llama_token token = llama_sampler_sample(sampler_, ctx, batch_index);
  if (generated_ == 0) first_token_at = Clock::now();
  ++generated_;
  ++unsent_tokens_;
  if (llama_vocab_is_eog(vocab, token) && !request_.sampling.ignore_eos) {
    Finish("stop", text_.Flush());
    return Outcome::kEnded;
  }
  char buffer[256];
  int n = llama_token_to_piece(vocab, token, buffer, sizeof buffer, 0, false);
  std::string piece;
  if (n < 0) {
    piece.resize(static_cast<size_t>(-n));
    n = llama_token_to_piece(vocab, token, piece.data(), -n, 0, false);
    piece.resize(static_cast<size_t>(std::max(n, 0)));
  } else {
    piece.assign(buffer, static_cast<size_t>(n));
  }
  bool stopped = false;
  std::string text = text_.Push(piece, &stopped);
  if (stopped) {
    Finish("stop", std::move(text));
    return Outcome::kEnded;
  }
  if (generated_ >= request_.sampling.max_tokens || context_left <= 0) {
    Finish("length", text + text_.Flush());
    return Outcome::kEnded;
  }
  last_token_ = token;
  if (request_.stream) {
    if (!text.empty()) Send(text, nullptr, false);
  } else {
    whole_ += text;
  }
  return Outcome::kContinue;
}

void Sequence::Finish(const char* reason, std::string text) {
  if (!request_.stream) {
    whole_ += text;
    text = request_.exclude_input ? std::move(whole_) : request_.prompt + whole_;
  }
  Send(text, reason, true);
  ended_ = true;
}

void Sequence::Fail(INFERD_Error_Code code, const std::string& message) {
  ended_ = true;
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNewFromSender(&response, sender_)) {
    INFERD_ErrorDelete(err);
    INFERD_ErrorDelete(INFERD_ResponseSenderSendFlags(sender_, INFERD_RESPONSE_COMPLETE_FINAL));
    return;
  }
  INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL,
                                         INFERD_ErrorNew(code, message.c_str())));
}

void Sequence::Send(const std::string& text, const char* finish_reason, bool final) {
  const uint32_t flags = final ? INFERD_RESPONSE_COMPLETE_FINAL : 0;
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNewFromSender(&response, sender_)) {
    INFERD_ErrorDelete(err);  // the request ended (cancelled): nothing to answer
    if (final) INFERD_ErrorDelete(INFERD_ResponseSenderSendFlags(sender_, flags));
    return;
  }
  if (INFERD_Error* err = AddOutputs(response, text, finish_reason, final)) {
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, err));
    ended_ = true;
    return;
  }
  unsent_tokens_ = 0;
  INFERD_ErrorDelete(INFERD_ResponseSend(response, flags, nullptr));
}

namespace {

INFERD_Error* AddBytes(INFERD_Response* response, const char* name, std::string_view value) {
  const int64_t shape[1] = {1};
  INFERD_Output* output = nullptr;
  if (INFERD_Error* err = INFERD_ResponseOutput(response, &output, name, INFERD_TYPE_BYTES, shape, 1)) return err;
  void* buffer = nullptr;
  INFERD_MemoryType type = INFERD_MEMORY_CPU;
  int64_t type_id = 0;
  const uint64_t size = bc::SerializedBytesSize(1, value.size());
  if (INFERD_Error* err = INFERD_OutputBuffer(output, &buffer, size, &type, &type_id)) return err;
  bc::WriteBytesElement(static_cast<char*>(buffer), value);
  return nullptr;
}

INFERD_Error* AddCount(INFERD_Response* response, const char* name, uint32_t value) {
  const int64_t shape[1] = {1};
  INFERD_Output* output = nullptr;
  if (INFERD_Error* err = INFERD_ResponseOutput(response, &output, name, INFERD_TYPE_UINT32, shape, 1)) return err;
  void* buffer = nullptr;
  INFERD_MemoryType type = INFERD_MEMORY_CPU;
  int64_t type_id = 0;
  if (INFERD_Error* err = INFERD_OutputBuffer(output, &buffer, sizeof value, &type, &type_id)) return err;
  std::memcpy(buffer, &value, sizeof value);
  return nullptr;
}

}  // namespace

INFERD_Error* Sequence::AddOutputs(INFERD_Response* response, const std::string& text,
                                   const char* finish_reason, bool final) {
  if (INFERD_Error* err = AddBytes(response, "text_output", text)) return err;
  if (final && finish_reason && request_.return_finish_reason && outputs_.finish_reason) {
    if (INFERD_Error* err = AddBytes(response, "finish_reason", finish_reason)) return err;
  }
  // The prompt's tokens once, with the first response.
  if (request_.return_num_input_tokens && outputs_.num_input_tokens && !sent_input_count_) {
    if (INFERD_Error* err = AddCount(response, "num_input_tokens", static_cast<uint32_t>(prompt_.size()))) return err;
    sent_input_count_ = true;
  }
  if (request_.return_num_output_tokens && outputs_.num_output_tokens) {
    return AddCount(response, "num_output_tokens", static_cast<uint32_t>(unsent_tokens_));
  }
  return nullptr;
}

}  // namespace inferd::llamacpp
