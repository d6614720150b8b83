// Loading a GGUF file with llama.cpp, and making an instance's context, with
// errors that say what went wrong: llama.cpp reports its reasons only to its
// log, so the lines it logs as errors while loading become the error's text.
// Thread-safe (the log capture is per thread).
#ifndef INFERD_BACKENDS_LLAMACPP_GGUF_MODEL_H_
#define INFERD_BACKENDS_LLAMACPP_GGUF_MODEL_H_

#include <string>

#include "inferd/backend.h"
#include "llama.h"
#include "llama_settings.h"

namespace inferd::llamacpp {

// Once per process (backend initialize): llama.cpp's backends, and its log
// sent to stderr from warnings up.
void InitializeLlama();

// Loads `path` on the CPU; INVALID_ARG naming the file and llama.cpp's
// reason when it is no GGUF file or a broken one.
INFERD_Error* LoadGguf(const std::string& path, llama_model** model);

// A context of `settings`' size and KV cache type for one instance.
INFERD_Error* NewContext(llama_model* model, const LlamaSettings& settings, llama_context** ctx);

// A built-in chat template name of the OpenAI frontend (chatml, llama3,
// llama2, gemma) matching the GGUF's Jinja template; "" when none matches.
std::string ChatTemplateName(const llama_model* model);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_GGUF_MODEL_H_
