// ONNX Runtime's C API as the backend uses it: the OrtApi function table,
// owning pointers for ORT objects, and the conversion of an OrtStatus into an
// INFERD_Error. Thread-safe once InitOrtApi() has succeeded (the table is
// read-only after that).
#ifndef INFERD_BACKENDS_ONNXRUNTIME_ORT_API_H_
#define INFERD_BACKENDS_ONNXRUNTIME_ORT_API_H_

#include <memory>
#include <string>

#include "common/entry_points.h"
#include "inferd/backend.h"
#include "onnxruntime_c_api.h"

namespace inferd::onnxruntime {

// Looks up the API table of the loaded libonnxruntime for the ORT_API_VERSION
// this backend was built with. Error when the library is older. Idempotent.
INFERD_Error* InitOrtApi();

// The API table; only after InitOrtApi() succeeded.
const OrtApi& Ort();

// Releases ORT objects through the API table.
struct OrtDeleter {
  void operator()(OrtEnv* p) const { Ort().ReleaseEnv(p); }
  void operator()(OrtSession* p) const { Ort().ReleaseSession(p); }
  void operator()(OrtSessionOptions* p) const { Ort().ReleaseSessionOptions(p); }
  void operator()(OrtThreadingOptions* p) const { Ort().ReleaseThreadingOptions(p); }
  void operator()(OrtValue* p) const { Ort().ReleaseValue(p); }
  void operator()(OrtTypeInfo* p) const { Ort().ReleaseTypeInfo(p); }
  void operator()(OrtTensorTypeAndShapeInfo* p) const { Ort().ReleaseTensorTypeAndShapeInfo(p); }
  void operator()(OrtMemoryInfo* p) const { Ort().ReleaseMemoryInfo(p); }
};
template <typename T>
using OrtPtr = std::unique_ptr<T, OrtDeleter>;

// Owns an INFERD_Error (null is success).
struct ErrorDeleter {
  void operator()(INFERD_Error* e) const { INFERD_ErrorDelete(e); }
};
using ErrorPtr = std::unique_ptr<INFERD_Error, ErrorDeleter>;

// A new error with `message`; the caller owns it.
using backend_common::MakeError;

// Takes `status` (null is success, giving null) and returns an error whose
// message is "<context>: <ONNX Runtime's message>". ORT's invalid-argument
// errors stay INVALID_ARG (the request was wrong), the rest become INTERNAL.
INFERD_Error* OrtError(OrtStatus* status, const std::string& context);

// A copy of `error` with `prefix` put before its message; `error` stays owned
// by the caller.
using backend_common::PrefixedError;

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_ORT_API_H_
