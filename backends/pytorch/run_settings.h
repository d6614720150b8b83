// How an instance runs its module, from the model's `parameters` (Triton's
// names for its PyTorch backend, string values):
//
//   INTRA_OP_THREAD_COUNT        threads one operator may use (OpenMP), per
//                                instance; unset or "0": max(1, cores / the
//                                model's instance count), so the instances of
//                                one model together use each core once
//   INTER_OP_THREAD_COUNT        LibTorch's inter-op pool (torch.jit.fork
//                                tasks); process-wide: the first model that
//                                sets it wins, later different values are
//                                ignored; unset or "0": LibTorch's default
//   INFERENCE_MODE               "true" (default): c10::InferenceMode around
//                                forward; "false": only autograd off (NoGrad)
//   DISABLE_OPTIMIZED_EXECUTION  "true": the graph executor runs unoptimized
//                                (set per instance thread); default "false"
//   ENABLE_NVFUSER, DISABLE_CUDNN, ENABLE_CACHE_CLEANING, ENABLE_WEIGHT_SHARING,
//   ENABLE_JIT_EXECUTOR, ENABLE_JIT_PROFILING, ENABLE_TENSOR_FUSER
//                                accepted when boolean, without effect (GPU
//                                switches, or process-wide LibTorch switches
//                                one model must not flip for the others)
//
// Booleans are true/false/1/0/on/off in any case. Pure; thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_RUN_SETTINGS_H_
#define INFERD_BACKENDS_PYTORCH_RUN_SETTINGS_H_

#include <string>

#include "model_settings.h"

namespace inferd::pytorch {

struct RunSettings {
  int intra_op_threads = 1;        //!< at::set_num_threads on the instance's thread
  int inter_op_threads = 0;        //!< 0: leave LibTorch's pool as it is
  bool inference_mode = true;      //!< c10::InferenceMode, else torch::NoGradGuard
  bool optimized_execution = true;  //!< torch::jit::setGraphExecutorOptimize
};

// The settings for one instance of `model` on a machine with `cores`
// hardware threads. Returns "" or what is malformed, naming the parameter.
std::string ResolveRunSettings(const ModelSettings& model, unsigned cores, RunSettings* settings);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_RUN_SETTINGS_H_
