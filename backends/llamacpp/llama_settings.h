// The llamacpp backend's model settings: the configuration's `parameters`
// (docs/llamacpp-backend.md) read into what the llama.cpp context and the
// decode loop need. Pure; thread-safe.
#ifndef INFERD_BACKENDS_LLAMACPP_LLAMA_SETTINGS_H_
#define INFERD_BACKENDS_LLAMACPP_LLAMA_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inferd::llamacpp {

struct LlamaSettings {
  std::string model_filename;   // default_model_filename, "" for model.gguf
  int context_size = 4096;      // tokens of KV cache, all slots together
  int parallel = 4;             // sequences decoded together (slots)
  int threads = 0;              // 0: as many as the machine has cores
  int batch_size = 512;         // tokens per llama_decode (prompt chunks)
  std::string kv_cache_type = "f16";  // f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1
  std::optional<uint32_t> seed;       // for requests that give none; else random
  std::string chat_template;          // override of the GGUF's (config parameter)
};

// Reads the model configuration `json`. Returns "" or the problem, naming
// the parameter and what it should be.
std::string ParseLlamaSettings(std::string_view json, LlamaSettings* out);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_LLAMA_SETTINGS_H_
