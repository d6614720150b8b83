#include "gguf_model.h"

#include <dlfcn.h>
#include <ggml-backend.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "common/entry_points.h"

namespace inferd::llamacpp {
namespace {

using backend_common::MakeError;

// The error lines llama.cpp logged on this thread while capturing.
thread_local std::string* captured_log = nullptr;

void LogToStderr(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR && captured_log != nullptr) captured_log->append(text);
  if (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
}

// Lines of `log` joined with "; " (llama.cpp ends each with a newline).
std::string OneLine(std::string log) {
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  for (size_t at = log.find('\n'); at != std::string::npos; at = log.find('\n', at)) {
    log.replace(at, 1, "; ");
  }
  return log;
}

// The folder libllama was loaded from.
std::string LlamaLibraryFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&llama_backend_init), &info) == 0 || info.dli_fname == nullptr) {
    return ".";
  }
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

void InitializeLlama() {
  llama_log_set(LogToStderr, nullptr);
  // llama.cpp's portable builds keep the CPU kernels in one library per CPU
  // generation (libggml-cpu-<arch>.so) beside libllama, and ggml loads the best
  // one the machine runs only when asked; it would look beside the executable.
  // A build with the kernels linked in finds nothing to load here.
  ggml_backend_load_all_from_path(LlamaLibraryFolder().c_str());
  llama_backend_init();
}

INFERD_Error* LoadGguf(const std::string& path, llama_model** model) {
  char magic[4] = {};
  std::ifstream file(path, std::ios::binary);
  if (!file.read(magic, sizeof magic) || std::string(magic, 4) != "GGUF") {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "llamacpp backend: " + path + " is not a GGUF file (it does not begin with 'GGUF')");
  }
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;
  std::string log;
  captured_log = &log;
  *model = llama_model_load_from_file(path.c_str(), params);
  captured_log = nullptr;
  if (*model == nullptr) {
    return MakeError(INFERD_ERROR_INVALID_ARG, "llamacpp backend: llama.cpp cannot load " + path +
                                                   (log.empty() ? std::string() : ": " + OneLine(log)));
  }
  return nullptr;
}

namespace {

ggml_type KvType(const std::string& name) {
  static const std::pair<const char*, ggml_type> types[] = {
      {"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16},
      {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}, {"q4_1", GGML_TYPE_Q4_1},
      {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1}};
  for (const auto& [type_name, type] : types) {
    if (name == type_name) return type;
  }
  return GGML_TYPE_F16;
}

}  // namespace

INFERD_Error* NewContext(llama_model* model, const LlamaSettings& settings, llama_context** ctx) {
  llama_context_params params = llama_context_default_params();
  params.n_ctx = static_cast<uint32_t>(settings.context_size);
  params.n_seq_max = static_cast<uint32_t>(settings.parallel);
  params.n_batch = static_cast<uint32_t>(std::max(settings.batch_size, settings.parallel));
  params.n_ubatch = std::min<uint32_t>(params.n_batch, 512);
  const int threads = settings.threads > 0
                          ? settings.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  params.n_threads = threads;
  params.n_threads_batch = threads;
  params.type_k = KvType(settings.kv_cache_type);
  params.type_v = params.type_k;
  params.no_perf = true;
  std::string log;
  captured_log = &log;
  *ctx = llama_init_from_model(model, params);
  captured_log = nullptr;
  if (*ctx == nullptr) {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "llamacpp backend: llama.cpp cannot make a context of " +
                         std::to_string(settings.context_size) + " tokens for " +
                         std::to_string(settings.parallel) + " sequences" +
                         (log.empty() ? std::string() : ": " + OneLine(log)));
  }
  return nullptr;
}

std::string ChatTemplateName(const llama_model* model) {
  const char* jinja = llama_model_chat_template(model, nullptr);
  if (jinja == nullptr) return "";
  const std::string text(jinja);
  if (text.find("<|im_start|>") != std::string::npos) return "chatml";
  if (text.find("<|start_header_id|>") != std::string::npos) return "llama3";
  if (text.find("<start_of_turn>") != std::string::npos) return "gemma";
  if (text.find("[INST]") != std::string::npos) return "llama2";
  return "";
}

}  // namespace inferd::llamacpp
