// Reading the outputs of one ONNX Runtime run for the common output responder
// (common/output_responder.h), which answers the requests in the run: numeric
// outputs are read in place, ONNX string tensors into their elements. Not
// thread-safe; used inside one execute.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_RUN_OUTPUT_H_
#define INFERD_BACKENDS_ONNXRUNTIME_RUN_OUTPUT_H_

#include <cstdint>

#include "common/output_responder.h"
#include "model_settings.h"
#include "ort_api.h"

namespace inferd::onnxruntime {

using backend_common::RunOutput;

// Reads `value` (the run's output for `spec`, which must outlive `out`) into
// `out`. Error when its element type differs from the configuration's or,
// for a batching model, its first dimension is not the run's `rows`.
INFERD_Error* ReadRunOutput(const TensorSpec& spec, OrtValue* value, bool batching, int64_t rows,
                            RunOutput* out);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_RUN_OUTPUT_H_
