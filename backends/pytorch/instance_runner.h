// One model instance: its own TorchScript module and what an execute call
// does with it. The requests of one call run in one forward() when the model
// batches and their inputs agree on every dimension but the batch one
// (otherwise in consecutive calls); each request is answered and released.
// Inputs reach the module as tensors over the request's own buffer when one
// request brings an input in one aligned buffer, else copied once into a
// batch tensor; outputs are copied into each response's buffers.
// Not thread-safe: the server never runs one instance's execute concurrently,
// and always on the instance's own thread, whose LibTorch thread settings
// (intra-op threads, graph optimization) the runner sets.
//
// C++17 (no std::span here): the files that include LibTorch 1.13's headers
// compile as C++17, which Clang needs for them (see CMakeLists.txt).
#ifndef INFERD_BACKENDS_PYTORCH_INSTANCE_RUNNER_H_
#define INFERD_BACKENDS_PYTORCH_INSTANCE_RUNNER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include <vector>

#include "common/input_collector.h"
#include "common/request_batch.h"
#include "inferd/backend.h"
#include "io_binding.h"
#include "model_settings.h"
#include "run_settings.h"
#include "torch_module.h"

namespace inferd::pytorch {

class InstanceRunner {
 public:
  // `settings`, `run` and `binding` must outlive the runner (the model state
  // owns them); `error_prefix` ("model 'm' version 1: ") starts every request
  // error.
  InstanceRunner(const ModelSettings& settings, const RunSettings& run, const IoBinding& binding,
                 TorchModulePtr module, std::string error_prefix);
  InstanceRunner(const InstanceRunner&) = delete;
  InstanceRunner& operator=(const InstanceRunner&) = delete;

  // Answers and releases every request of `instance`'s execution, and reports
  // the forward() calls' span as its compute time. A request that cannot run
  // gets its own error; a failed forward() answers every request in it with
  // LibTorch's reason, trimmed to its meaningful line.
  void Execute(INFERD_ModelInstance* instance, INFERD_Request* const* requests, uint32_t count);

 private:
  // Runs `batch` in one forward() call and answers its requests.
  void RunBatch(INFERD_ModelInstance* instance, backend_common::Batch batch);

  // Constant after construction.
  const ModelSettings& settings_;
  const RunSettings& run_;
  const IoBinding& binding_;
  const TorchModulePtr module_;
  const std::string error_prefix_;

  std::vector<INFERD_MemoryCopy> copies_;   //!< one numeric input's copies, reused
  backend_common::BytesInputReader bytes_;  //!< BYTES inputs' elements, reused
};

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_INSTANCE_RUNNER_H_
