// Answering the requests of one run from its outputs, as Triton's output
// responder does: each request gets a FINAL response holding the outputs it
// asked for, its own rows of each, written into buffers from its own
// allocator (INFERD_OutputBuffer); numeric rows are copied in one call for all
// responses. The backend reads the framework's outputs into RunOutput first.
// Not thread-safe; used inside one execute call.
// C++17 (the PyTorch backend's LibTorch files include it).
#ifndef INFERD_BACKENDS_COMMON_OUTPUT_RESPONDER_H_
#define INFERD_BACKENDS_COMMON_OUTPUT_RESPONDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/request_batch.h"
#include "inferd/backend.h"

namespace inferd::backend_common {

// One output of a run, as the framework produced it (the backend keeps the
// memory alive until the responses are sent).
struct RunOutput {
  const TensorSpec* spec = nullptr;  //!< null: no request of the run asked for it
  std::vector<int64_t> shape;        //!< as the model produced it
  const char* data = nullptr;        //!< numeric outputs: the tensor's memory
  std::string strings;               //!< BYTES outputs: every element back to back
  std::vector<size_t> offsets;       //!< BYTES outputs: where each element starts, then the end
};

// Sends every request of `batch` its FINAL response: the outputs it asked for
// (from `outputs`, `output_count` of them), or the error that kept one from
// being filled (prefixed with `error_prefix`). Does not release the requests.
void ScatterOutputs(INFERD_ModelInstance* instance, const ModelSettings& settings, Batch batch,
                    const RunOutput* outputs, size_t output_count,
                    const std::string& error_prefix);

// Answers every request of `batch` with `error` (prefixed); the caller keeps it.
void RespondAllWithError(Batch batch, INFERD_Error* error, const std::string& error_prefix);

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_OUTPUT_RESPONDER_H_
