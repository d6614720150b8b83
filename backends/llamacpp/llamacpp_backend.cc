// The llamacpp backend: GGUF language models on the CPU through llama.cpp,
// as decoupled models that follow the OpenAI tensor convention
// (generation_request.h, docs/llamacpp-backend.md). Each instance owns a
// llama.cpp context and a decode loop that batches its requests
// continuously (decode_loop.h); execute only reads and tokenizes a request,
// queues it on the loop and returns.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/entry_points.h"
#include "common/model_loading.h"
#include "config_completion.h"
#include "decode_loop.h"
#include "generation_stats.h"
#include "gguf_model.h"
#include "inferd/backend.h"
#include "llama_settings.h"

namespace inferd::llamacpp {
namespace {

namespace bc = inferd::backend_common;
using bc::MakeError;

// A loaded model version: the weights every instance shares.
struct LlamaModel {
  LlamaSettings settings;
  llama_model* model = nullptr;  // owned
  DeclaredOutputs outputs;
  std::unique_ptr<GenerationStats> stats;
  std::string error_prefix;  // "model 'm' version 1: "
  ~LlamaModel() {
    if (model != nullptr) llama_model_free(model);
  }
};

struct LlamaInstance {
  std::unique_ptr<DecodeLoop> loop;
};

// Completes the configuration from the GGUF when the server allows it.
INFERD_Error* Complete(INFERD_Model* model, LlamaModel& state, std::string* json) {
  bool allowed = false;
  if (INFERD_Error* err = INFERD_ModelAutoCompleteConfig(model, &allowed)) return err;
  if (!allowed) return nullptr;
  const std::string completed = CompleteConfig(*json, ChatTemplateName(state.model));
  if (completed.empty()) return nullptr;
  if (INFERD_Error* err = INFERD_ModelSetConfig(model, completed.c_str())) return err;
  return bc::ReadModelConfigJson(model, json);
}

INFERD_Error* InitializeModel(INFERD_Model* model) {
  auto state = std::make_unique<LlamaModel>();
  std::string json;
  if (INFERD_Error* err = bc::ReadSettings(model, ParseLlamaSettings, &state->settings, &json)) return err;
  if (INFERD_Error* err = bc::RequestErrorPrefix(model, &state->error_prefix)) return err;
  std::string path;
  const bc::ModelFileRule rule{"llamacpp", "model.gguf", false};
  if (INFERD_Error* err = bc::FindModelFile(model, state->settings.model_filename, rule, &path)) return err;
  if (INFERD_Error* err = LoadGguf(path, &state->model)) return err;
  if (INFERD_Error* err = Complete(model, *state, &json)) return err;
  state->outputs = ReadDeclaredOutputs(json);
  state->stats = std::make_unique<GenerationStats>(model);
  return bc::GiveModelState(model, std::move(state));
}

INFERD_Error* InitializeInstance(INFERD_ModelInstance* instance) {
  LlamaModel* model = nullptr;
  if (INFERD_Error* err = bc::ModelStateOf(instance, &model)) return err;
  llama_context* ctx = nullptr;
  if (INFERD_Error* err = NewContext(model->model, model->settings, &ctx)) return err;
  auto state = std::make_unique<LlamaInstance>();
  state->loop = std::make_unique<DecodeLoop>(model->model, ctx, model->settings.parallel,
                                             model->settings.batch_size, model->stats.get());
  return bc::GiveInstanceState(instance, std::move(state));
}

// The prompt's tokens, with the model's BOS as llama-server adds it.
std::vector<llama_token> Tokenize(const llama_vocab* vocab, const std::string& text) {
  std::vector<llama_token> tokens(text.size() + 2);
  int n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                         static_cast<int32_t>(tokens.size()), true, true);
  if (n < 0) {
    tokens.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                       static_cast<int32_t>(tokens.size()), true, true);
  }
  tokens.resize(static_cast<size_t>(std::max(n, 0)));
  return tokens;
}

// Reads, tokenizes and queues one request, releasing it. On error nothing was
// sent or released.
INFERD_Error* Start(LlamaModel& model, DecodeLoop& loop, INFERD_Request* request) {
  GenerationRequest generation;
  if (INFERD_Error* err = ReadGenerationRequest(request, &generation)) return err;
  std::vector<llama_token> prompt;
  try {
    prompt = Tokenize(llama_model_get_vocab(model.model), generation.prompt);
  } catch (const std::exception& e) {  // a vocabulary without byte fallback for a character
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     std::string("the model's vocabulary cannot tokenize the prompt (") +
                         e.what() + ")");
  }
  if (prompt.empty()) return MakeError(INFERD_ERROR_INVALID_ARG, "the prompt has no tokens");
  if (static_cast<int>(prompt.size()) >= loop.ContextPerSequence()) {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "the prompt has " + std::to_string(prompt.size()) +
                         " tokens, the context of a sequence only " +
                         std::to_string(loop.ContextPerSequence()) +
                         " (parameters context_size / parallel)");
  }
  INFERD_ResponseSender* sender = nullptr;
  if (INFERD_Error* err = INFERD_ResponseSenderNew(&sender, request)) return err;
  const uint32_t seed = model.settings.seed.value_or(LLAMA_DEFAULT_SEED);
  llama_sampler* sampler = MakeSampler(generation.sampling, seed, llama_model_get_vocab(model.model));
  auto sequence = std::make_unique<Sequence>(std::move(generation), std::move(prompt), sampler,
                                             sender, model.outputs);
  INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
  loop.Submit(std::move(sequence));
  return nullptr;
}

void Refuse(INFERD_Request* request, INFERD_Error* error, const std::string& prefix) {
  INFERD_Error* prefixed = bc::PrefixedError(error, prefix);
  INFERD_ErrorDelete(error);
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, request)) {
    INFERD_ErrorDelete(err);
    INFERD_ErrorDelete(prefixed);
  } else {
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, prefixed));
  }
  INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
}

}  // namespace
}  // namespace inferd::llamacpp

extern "C" {

using inferd::backend_common::GuardedCall;
namespace ll = inferd::llamacpp;

__attribute__((visibility("default"))) INFERD_Error* INFERD_BackendInitialize(INFERD_Backend*) {
  if (INFERD_Error* err = inferd::backend_common::CheckBackendApiVersion("llamacpp")) return err;
  ll::InitializeLlama();
  return nullptr;
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  return GuardedCall("llamacpp", [&] { return ll::InitializeModel(model); });
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return inferd::backend_common::DeleteModelState<ll::LlamaModel>(model);
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceInitialize(
    INFERD_ModelInstance* instance) {
  return GuardedCall("llamacpp", [&] { return ll::InitializeInstance(instance); });
}

// Stops the decode loop: sequences still running end UNAVAILABLE.
__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceFinalize(
    INFERD_ModelInstance* instance) {
  return inferd::backend_common::DeleteInstanceState<ll::LlamaInstance>(instance);
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceExecute(
    INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t request_count) {
  ll::LlamaModel* model = nullptr;
  if (INFERD_Error* err = inferd::backend_common::ModelStateOf(instance, &model)) return err;
  return inferd::backend_common::ExecuteOnInstance<ll::LlamaInstance>(
      instance, "llamacpp backend: instance has no state", [&](ll::LlamaInstance& state) {
        for (uint32_t r = 0; r < request_count; ++r) {
          INFERD_Error* err = GuardedCall("llamacpp", [&] {
            return ll::Start(*model, *state.loop, requests[r]);
          });
          if (err != nullptr) ll::Refuse(requests[r], err, model->error_prefix);
        }
      });
}

}  // extern "C"
