// Gathering the inputs of the requests in one run into ONNX Runtime tensors:
// the requests' rows concatenated along the batch dimension, each input
// copied once into one contiguous buffer, or wrapped without a copy when a
// single request brings it in a single suitably aligned buffer. BYTES inputs
// become ONNX string tensors. Not thread-safe; one InputGather per instance
// (the server never runs one instance's execute concurrently).
#ifndef INFERD_BACKENDS_ONNXRUNTIME_INPUT_GATHER_H_
#define INFERD_BACKENDS_ONNXRUNTIME_INPUT_GATHER_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model_settings.h"
#include "ort_api.h"
#include "request_batch.h"

namespace inferd::onnxruntime {

class InputGather {
 public:
  InputGather() = default;
  InputGather(const InputGather&) = delete;
  InputGather& operator=(const InputGather&) = delete;

  // Builds one tensor per configured input for a run of `requests` (several
  // only when the model batches). The tensors may point into the requests'
  // buffers or into this object's memory: use them before the requests are
  // released and before the next Gather. Error (naming the input) when a
  // request's data does not match its shape. Large batches are copied
  // through `instance` (the server's buffer-manager threads, if any).
  INFERD_Error* Gather(INFERD_ModelInstance* instance, const ModelSettings& settings,
                       std::span<const BatchedRequest> requests,
                       std::vector<OrtPtr<OrtValue>>* values);

 private:
  INFERD_Error* GatherNumeric(INFERD_ModelInstance* instance, const TensorSpec& spec, size_t index,
                              std::span<const BatchedRequest> requests,
                              const std::vector<int64_t>& shape, OrtPtr<OrtValue>* value);
  INFERD_Error* GatherStrings(const TensorSpec& spec, size_t index,
                              std::span<const BatchedRequest> requests,
                              const std::vector<int64_t>& shape, OrtPtr<OrtValue>* value);
  // The bytes of one request's input, concatenated when it has several buffers.
  INFERD_Error* InputBytes(const RequestInput& in, std::string_view* bytes);

  OrtPtr<OrtMemoryInfo> cpu_memory_;
  std::vector<std::vector<char>> buffers_;  //!< one per input, reused across runs
  std::vector<INFERD_MemoryCopy> copies_;   //!< one numeric input's copies, reused
  std::string joined_;                      //!< a multi-buffer BYTES input, joined
  std::vector<std::string_view> elements_;  //!< BYTES elements of one request
};

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_INPUT_GATHER_H_
