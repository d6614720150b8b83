// The inputs and outputs an ONNX model declares (name, element type, shape),
// as ONNX Runtime reports them for a loaded session. Config completion and
// validation compare the configuration against this. Not thread-safe; a
// plain value.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_MODEL_IO_H_
#define INFERD_BACKENDS_ONNXRUNTIME_MODEL_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ort_api.h"

namespace inferd::onnxruntime {

// One tensor of the model's graph.
struct OnnxTensor {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> dims;  //!< the full shape; -1 for a dynamic (symbolic) dimension
};

struct ModelIo {
  std::vector<OnnxTensor> inputs;
  std::vector<OnnxTensor> outputs;
};

// Reads the session's inputs and outputs. Error (naming the tensor) when one
// is not a tensor (a sequence or map), which the backend does not serve.
INFERD_Error* ReadModelIo(const OrtSession& session, ModelIo* io);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_MODEL_IO_H_
