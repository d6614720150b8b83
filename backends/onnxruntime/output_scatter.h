// Scattering the outputs of one ONNX Runtime run back to the requests in it:
// each request gets a response holding the outputs it asked for, its own rows
// of each, written into buffers from its own allocator (INFERD_OutputBuffer).
// ONNX string tensors become BYTES. Not thread-safe; used inside one execute.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_OUTPUT_SCATTER_H_
#define INFERD_BACKENDS_ONNXRUNTIME_OUTPUT_SCATTER_H_

#include <span>
#include <string>
#include <vector>

#include "model_settings.h"
#include "ort_api.h"
#include "request_batch.h"

namespace inferd::onnxruntime {

// One output of a run, read once.
struct RunOutput {
  const TensorSpec* spec = nullptr;
  OrtPtr<OrtValue> value;
  std::vector<int64_t> shape;      //!< as the model produced it
  const char* data = nullptr;      //!< numeric outputs: the tensor's memory
  std::string strings;             //!< BYTES outputs: every element back to back
  std::vector<size_t> offsets;     //!< BYTES outputs: where each element starts
};

// Reads `value` (the run's output for `spec`) into `out`. Error when its
// element type differs from the configuration's or, for a batching model, its
// first dimension is not the run's `rows`.
INFERD_Error* ReadRunOutput(const TensorSpec& spec, OrtPtr<OrtValue> value, bool batching,
                            int64_t rows, RunOutput* out);

// Sends every request of the run its FINAL response: the outputs it asked for,
// or the error that kept one from being filled (prefixed with `error_prefix`).
// Does not release the requests.
// Numeric outputs are copied through `instance` (INFERD_ModelInstanceCopyBuffers).
void ScatterOutputs(INFERD_ModelInstance* instance, const ModelSettings& settings,
                    std::span<const BatchedRequest> requests, std::span<const RunOutput> outputs,
                    const std::string& error_prefix);

// Sends `request` a FINAL response carrying a copy of `error`, prefixed.
void RespondWithError(INFERD_Request* request, INFERD_Error* error, const std::string& prefix);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_OUTPUT_SCATTER_H_
