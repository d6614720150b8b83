// ONNX Runtime's API table and error conversion (see ort_api.h).
#include "ort_api.h"

#include <atomic>
#include <cctype>

namespace inferd::onnxruntime {
namespace {

std::atomic<const OrtApi*> g_api{nullptr};

}  // namespace

INFERD_Error* InitOrtApi() {
  if (g_api.load(std::memory_order_acquire) != nullptr) return nullptr;
  const OrtApiBase* base = OrtGetApiBase();
  const OrtApi* api = base ? base->GetApi(ORT_API_VERSION) : nullptr;
  if (api == nullptr) {
    const std::string have = base ? base->GetVersionString() : "unknown";
    return MakeError(INFERD_ERROR_INTERNAL,
                     "onnxruntime backend: the loaded libonnxruntime (version " + have +
                         ") does not offer C API version " + std::to_string(ORT_API_VERSION) +
                         ", which this backend was built against");
  }
  g_api.store(api, std::memory_order_release);
  return nullptr;
}

const OrtApi& Ort() { return *g_api.load(std::memory_order_acquire); }

INFERD_Error* OrtError(OrtStatus* status, const std::string& context) {
  if (status == nullptr) return nullptr;
  const OrtErrorCode ort_code = Ort().GetErrorCode(status);
  std::string message = context + ": " + Ort().GetErrorMessage(status);
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
    message.pop_back();
  }
  Ort().ReleaseStatus(status);
  const INFERD_Error_Code code =
      ort_code == ORT_INVALID_ARGUMENT ? INFERD_ERROR_INVALID_ARG
      : ort_code == ORT_NOT_IMPLEMENTED ? INFERD_ERROR_UNSUPPORTED
                                        : INFERD_ERROR_INTERNAL;
  return MakeError(code, message);
}

}  // namespace inferd::onnxruntime
