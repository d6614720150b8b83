// Fuzz target: an inference request body (the KServe v2 JSON, optionally
// followed by binary-extension tensor data) and generate-extension bodies for
// a model with inputs of several datatypes and shapes. The first byte picks
// where the JSON ends, as the Inference-Header-Content-Length header would.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "http/generate_request.h"
#include "http/infer_request_parser.h"
#include "http/model_inputs.h"

namespace {

const std::vector<inferd::http::ModelInput>& GenerateInputs() {
  static const auto* inputs = new std::vector<inferd::http::ModelInput>{
      {"text_input", INFERD_TYPE_BYTES, {-1}},
      {"max_tokens", INFERD_TYPE_INT32, {1}},
      {"scores", INFERD_TYPE_FP32, {-1, 2, -1}},
      {"flag", INFERD_TYPE_BOOL, {1}},
      {"big", INFERD_TYPE_UINT64, {-1}},
      {"half", INFERD_TYPE_FP16, {2}}};
  return *inputs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t split = data[0];
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  // 255: all JSON; otherwise the JSON ends `split` bytes before the end.
  const size_t json_size = split == 255 || split > body.size() ? body.size() : body.size() - split;
  {
    std::string copy = body;
    inferd::http::ParsedInferRequest parsed;
    (void)inferd::http::ParseInferRequest(copy.data(), copy.size(), json_size, &parsed);
  }
  inferd::http::ParsedInferRequest generated;
  (void)inferd::http::ParseGenerateRequest(body.data(), body.size(), GenerateInputs(), &generated);
  return 0;
}
