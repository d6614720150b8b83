// Gathering the inputs of the requests in one run into ONNX Runtime tensors
// through the common input collector (common/input_collector.h): the
// requests' rows concatenated along the batch dimension, each input copied
// once into one contiguous buffer, or wrapped without a copy when a single
// request brings it in a single suitably aligned buffer. BYTES inputs become
// ONNX string tensors. Not thread-safe; one InputGather per instance (the
// server never runs one instance's execute concurrently).
#ifndef INFERD_BACKENDS_ONNXRUNTIME_INPUT_GATHER_H_
#define INFERD_BACKENDS_ONNXRUNTIME_INPUT_GATHER_H_

#include <vector>

#include "common/input_collector.h"
#include "common/request_batch.h"
#include "model_settings.h"
#include "ort_api.h"

namespace inferd::onnxruntime {

using backend_common::Batch;
using backend_common::BatchedRequest;
using backend_common::RequestInput;

class InputGather {
 public:
  InputGather() = default;
  InputGather(const InputGather&) = delete;
  InputGather& operator=(const InputGather&) = delete;

  // Builds one tensor per configured input for a run of `batch` (several
  // requests only when the model batches). The tensors may point into the
  // requests' buffers or into this object's memory: use them before the
  // requests are released and before the next Gather. Error (naming the
  // input) when a request's data does not match its shape. Large batches are
  // copied through `instance` (the server's buffer-manager threads, if any).
  INFERD_Error* Gather(INFERD_ModelInstance* instance, const ModelSettings& settings, Batch batch,
                       std::vector<OrtPtr<OrtValue>>* values);

 private:
  // The run's memory of numeric input `index`: borrowed, or copied into
  // buffers_[index].
  INFERD_Error* NumericData(INFERD_ModelInstance* instance, const TensorSpec& spec, size_t index,
                            Batch batch, uint64_t total, void** data);
  INFERD_Error* GatherNumeric(INFERD_ModelInstance* instance, const TensorSpec& spec, size_t index,
                              Batch batch, const std::vector<int64_t>& shape,
                              OrtPtr<OrtValue>* value);
  INFERD_Error* GatherStrings(const TensorSpec& spec, size_t index, Batch batch,
                              const std::vector<int64_t>& shape, OrtPtr<OrtValue>* value);

  OrtPtr<OrtMemoryInfo> cpu_memory_;
  std::vector<std::vector<char>> buffers_;  //!< one per input, reused across runs
  std::vector<INFERD_MemoryCopy> copies_;   //!< one numeric input's copies, reused
  backend_common::BytesInputReader bytes_;  //!< BYTES inputs' elements, reused
};

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_INPUT_GATHER_H_
