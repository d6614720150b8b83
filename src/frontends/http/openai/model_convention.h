// How the OpenAI API meets a model: the tensor convention (Triton's
// vLLM-style one, docs/openai-api.md). What a model offers of it is read from
// its metadata and configuration for each request, and one choice of a
// request becomes a generate extension body over the model's inputs, so it
// is submitted the way /generate_stream submits. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_MODEL_CONVENTION_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_MODEL_CONVENTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "http/model_inputs.h"
#include "http/openai/chat_template.h"
#include "http/openai/openai_request.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http::openai {

// The convention's names.
inline constexpr const char* kTextInput = "text_input";
inline constexpr const char* kTextOutput = "text_output";
inline constexpr const char* kEmbeddingOutput = "embedding";
inline constexpr const char* kFinishReasonOutput = "finish_reason";
inline constexpr const char* kNumInputTokensOutput = "num_input_tokens";
inline constexpr const char* kNumOutputTokensOutput = "num_output_tokens";

struct ModelConvention {
  std::vector<ModelInput> inputs;  // all of the model's, from its metadata
  ChatTemplate chat_template;      // parameters chat_template*, or the default
  bool Has(const char* input) const;
};

// The model's inputs and chat template; the server's error (NOT_FOUND for a
// model that does not serve) when it has none.
Status DescribeModel(INFERD_Server* server, const std::string& model,
                     ModelConvention* convention);

// INVALID_ARG unless the model takes text_input as BYTES.
Status CheckConvention(const ModelConvention& convention, const std::string& model);

// The generate body of choice `choice` of `request` for `prompt`: text_input,
// and each optional input the model declares (stream, sampling_parameters
// with the seed offset by the choice, exclude_input_in_output, the return_*
// switches, chat_messages).
std::string GenerateBody(const ModelConvention& convention, const ApiRequest& request,
                         const std::string& prompt, int64_t choice);

// The sampling fields as the JSON string sampling_parameters carries.
std::string SamplingJson(const Sampling& sampling, int64_t seed_offset);

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_MODEL_CONVENTION_H_
