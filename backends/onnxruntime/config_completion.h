// Configuration from the model file: completing a partial configuration
// (inputs, outputs, datatypes, dims, max_batch_size) from the tensors an ONNX
// model declares, as Triton's auto-complete does, and checking a configuration
// against the model. Pure functions; thread-safe.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_CONFIG_COMPLETION_H_
#define INFERD_BACKENDS_ONNXRUNTIME_CONFIG_COMPLETION_H_

#include <cstdint>
#include <string>

#include "model_io.h"
#include "model_settings.h"
#include "rapidjson/document.h"
#include "common/shapes.h"

namespace inferd::onnxruntime {

// Triton's default for --backend-config=onnxruntime,default-max-batch-size.
constexpr int64_t kDefaultMaxBatchSize = 4;

// Whether the model can batch: every input and output has a dynamic first
// dimension.
bool ModelCanBatch(const ModelIo& io);

// Completes `config`, the JSON object INFERD_ModelConfig returns, in place:
// - max_batch_size: when it is 0, the model can batch and no configured tensor
//   lists its full shape, it becomes `default_max_batch_size`, and
//   `dynamic_batching {}` is added unless a batcher is configured already;
// - every model input and output missing from the configuration is added, and
//   a configured one without data_type or dims gets them (dims without the
//   batch dimension; a tensor left with no dimension gets dims [1] and
//   reshape [], as Triton does);
// - tensors the sequence batcher supplies (sequence_batching's control inputs
//   and implicit state inputs and outputs) are left out of input and output.
// Returns "" on success, else why the model cannot be described (an element
// type inferd does not serve). CheckConfigMatchesModel judges the result.
std::string CompleteConfig(const ModelIo& io, int64_t default_max_batch_size,
                           rapidjson::Document* config);

// Checks a (complete) configuration against the model: every configured
// tensor exists in the model with the same element type and a compatible shape,
// and every model input is configured. Returns "" or the first mismatch,
// naming the tensor and both shapes or types.
std::string CheckConfigMatchesModel(const ModelSettings& settings, const ModelIo& io);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_CONFIG_COMPLETION_H_
