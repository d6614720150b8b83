// One model instance: its ONNX Runtime session and what an execute call does
// with it. The requests of one call run together in one ORT run when the
// model batches and their inputs agree on every dimension but the batch one
// (otherwise in consecutive runs); each request is answered and released.
// Not thread-safe: the server never runs one instance's execute concurrently.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_INSTANCE_RUNNER_H_
#define INFERD_BACKENDS_ONNXRUNTIME_INSTANCE_RUNNER_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "input_gather.h"
#include "model_settings.h"
#include "ort_api.h"
#include "run_output.h"

namespace inferd::onnxruntime {

class InstanceRunner {
 public:
  // `settings` must outlive the runner (the model state owns both);
  // `error_prefix` ("model 'm' version 1: ") starts every request error.
  InstanceRunner(const ModelSettings& settings, std::shared_ptr<OrtSession> session,
                 std::string error_prefix);
  InstanceRunner(const InstanceRunner&) = delete;
  InstanceRunner& operator=(const InstanceRunner&) = delete;

  // Answers and releases every request of `instance`'s execution, and reports
  // the ORT runs' span as its compute time. A request that cannot run gets its
  // own error; a failed ORT run answers every request in it with ORT's reason.
  void Execute(INFERD_ModelInstance* instance, std::span<INFERD_Request* const> requests);

 private:
  // Runs `batch` in one ORT run and answers its requests.
  void RunBatch(INFERD_ModelInstance* instance, Batch batch);
  // Runs the model; its outputs go to outputs_ (owned by output_values_).
  INFERD_Error* Run(INFERD_ModelInstance* instance, Batch batch);

  // Constant after construction.
  const ModelSettings& settings_;
  //! Shared with the model's other instances when they share one session
  //! (ORT runs a session concurrently).
  const std::shared_ptr<OrtSession> session_;
  const std::string error_prefix_;
  std::vector<const char*> input_names_;  //!< settings_.inputs' names, for OrtApi::Run

  InputGather gather_;                     //!< reused across calls
  std::vector<OrtPtr<OrtValue>> inputs_;   //!< the current run's inputs
  std::vector<OrtPtr<OrtValue>> output_values_;  //!< the current run's outputs
  std::vector<RunOutput> outputs_;               //!< output_values_, read
};

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_INSTANCE_RUNNER_H_
