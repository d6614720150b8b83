// Filling in the defaults Triton fills in, so a config shown by the config
// endpoint or used by the core is complete: name, platform/backend pair,
// default model file, version policy, instance groups, pinned-memory
// optimization and batcher defaults. Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_MODEL_CONFIG_NORMALIZER_H_
#define INFERD_CORE_CONFIG_MODEL_CONFIG_NORMALIZER_H_

#include "inferd/base/status.h"
#include "core/config/config_context.h"
#include "model_config.pb.h"

namespace inferd {

// Completes `config` in place; runs before ValidateModelConfig. What it fills:
// - name: ctx.model_name when empty.
// - platform/backend: each from the other (onnxruntime_onnx <-> onnxruntime,
//   pytorch_libtorch <-> pytorch, tensorrt_plan <-> tensorrt,
//   tensorflow_graphdef/savedmodel -> tensorflow); when both are empty, from
//   default_model_filename or the model file in the lowest version folder
//   under ctx.model_dir; an ensemble gets no backend.
// - default_model_filename: the platform's or backend's file (model.onnx,
//   model.pt, model.plan, model.graphdef, model.savedmodel, model.py).
// - version_policy: latest { num_versions: 1 }.
// - dynamic_batching / sequence_batching oldest: preferred_batch_size
//   [max_batch_size] when empty and max_batch_size > 0; sequence_batching:
//   max_sequence_idle_microseconds 1000000 when 0.
// - not for ensembles: optimization input/output_pinned_memory enable true;
//   instance_group: one group named "<model>" when there is none; an unnamed
//   group i is named "<model>_<i>"; KIND_AUTO becomes KIND_GPU when the
//   machine has GPUs and the backend can use them, else KIND_CPU; count 0
//   becomes 1 (2 for KIND_CPU on onnxruntime and tensorflow); a KIND_GPU
//   group without gpus gets every GPU.
// Leaves anything it cannot decide for ValidateModelConfig to report.
Status NormalizeModelConfig(const ConfigContext& ctx, inference::ModelConfig* config);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_MODEL_CONFIG_NORMALIZER_H_
