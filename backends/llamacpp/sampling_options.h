// What a request's sampling_parameters input (a JSON object, the fields of
// vLLM's SamplingParams that llama.cpp's samplers implement) asks for. Pure;
// thread-safe.
#ifndef INFERD_BACKENDS_LLAMACPP_SAMPLING_OPTIONS_H_
#define INFERD_BACKENDS_LLAMACPP_SAMPLING_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferd::llamacpp {

// sampling_parameters, with vLLM's defaults for what it leaves out.
struct SamplingOptions {
  float temperature = 1.0f;  // <= 0: greedy
  float top_p = 1.0f;
  int top_k = 0;  // <= 0: all tokens (vLLM's -1)
  float min_p = 0.0f;
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  float repetition_penalty = 1.0f;
  std::optional<uint32_t> seed;  // none: the model's seed parameter, else random
  int max_tokens = 16;
  std::vector<std::string> stop;
  bool ignore_eos = false;
};

// Parses sampling_parameters' JSON. Returns "" or the problem naming the field.
std::string ParseSamplingJson(std::string_view json, SamplingOptions* out);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_SAMPLING_OPTIONS_H_
