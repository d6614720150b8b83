// One request as the OpenAI tensor convention (docs/openai-api.md, Triton's
// vLLM-style one) gives it: the prompt in text_input (BYTES), and the
// optional inputs stream (BOOL), exclude_input_in_output (BOOL),
// return_finish_reason / return_num_input_tokens / return_num_output_tokens
// (BOOL) and sampling_parameters (BYTES holding a JSON object).
#ifndef INFERD_BACKENDS_LLAMACPP_GENERATION_REQUEST_H_
#define INFERD_BACKENDS_LLAMACPP_GENERATION_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/backend.h"
#include "sampling_options.h"

namespace inferd::llamacpp {

struct GenerationRequest {
  std::string prompt;
  bool stream = false;        // one response per chunk; else one response in all
  bool exclude_input = false; // exclude_input_in_output (non-streamed responses only)
  bool return_finish_reason = false;
  bool return_num_input_tokens = false;
  bool return_num_output_tokens = false;
  SamplingOptions sampling;
};

// Reads `request`'s inputs; INVALID_ARG naming the input that is missing or malformed.
INFERD_Error* ReadGenerationRequest(INFERD_Request* request, GenerationRequest* out);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_GENERATION_REQUEST_H_
