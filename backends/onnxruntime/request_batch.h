// The requests one execute call hands the backend, read once: each request's
// inputs in configuration order with their shapes, and its row count when the
// model batches. Requests whose inputs agree on every dimension but the batch
// one may share one ONNX Runtime run. Not thread-safe; lives inside one
// execute call.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_REQUEST_BATCH_H_
#define INFERD_BACKENDS_ONNXRUNTIME_REQUEST_BATCH_H_

#include <cstdint>
#include <vector>

#include "inferd/backend.h"
#include "model_settings.h"

namespace inferd::onnxruntime {

// One input of one request.
struct RequestInput {
  INFERD_Input* input = nullptr;
  const int64_t* shape = nullptr;  //!< batch dimension included when the model batches
  uint32_t rank = 0;
  uint64_t byte_size = 0;          //!< over all buffers
  uint32_t buffer_count = 0;
};

// One request, ready to join a run.
struct BatchedRequest {
  INFERD_Request* request = nullptr;
  std::vector<RequestInput> inputs;  //!< indexed like ModelSettings::inputs
  int64_t rows = 1;                  //!< dimension 0 when the model batches, else 1
};

// Reads `request`'s inputs as `settings` lists them. Error (INVALID_ARG) when
// one is missing, has another datatype, or the inputs disagree on the batch
// size.
INFERD_Error* PrepareRequest(const ModelSettings& settings, INFERD_Request* request,
                             BatchedRequest* out);

// Whether `b` may run in one batch with `a`: same shape of every input apart
// from dimension 0.
bool SameRowShape(const BatchedRequest& a, const BatchedRequest& b);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_REQUEST_BATCH_H_
