// The scheduler of an ensemble (platform "ensemble"): runs each client
// request through the ensemble's step graph, event-driven. A step's request
// is built and submitted through the server's submit path (RequestSubmitter)
// as soon as every tensor it reads exists, so independent steps run in
// parallel and each composing model batches them with its other traffic.
// Step outputs are written by the composing model straight into memory the
// run owns and are read by later steps from there (no copy); the client gets
// the ensemble outputs it asked for copied once into its own memory. Only the
// steps those outputs need run. Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_ENSEMBLE_SCHEDULER_H_
#define INFERD_CORE_SCHEDULER_ENSEMBLE_SCHEDULER_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/scheduler/scheduler.h"
#include "model_config.pb.h"

namespace inferd {

class RequestSubmitter;

// The step graph of a validated ensemble config, in the form a run walks it.
struct EnsemblePlan {
  struct Step {
    std::string model_name;
    std::string model_namespace;  // its repository (--model-namespacing); or empty
    int64_t model_version = -1;
    // (model input, ensemble tensor) and (model output, ensemble tensor).
    std::vector<std::pair<std::string, std::string>> inputs;
    std::vector<std::pair<std::string, std::string>> outputs;
    // Its model takes sequences: its requests carry the client's sequence
    // id and START/END flags.
    bool sequences = false;
  };
  std::string ensemble_name;
  // model_transaction_policy { decoupled: true }: the client gets a response
  // per generation of the outputs (see EnsembleRun) and FINAL at the end.
  bool decoupled = false;
  std::vector<Step> steps;
  // Ensemble tensor -> the step producing it (absent: an ensemble input).
  std::map<std::string, int, std::less<>> producer;
  // Ensemble tensor -> the steps reading it.
  std::map<std::string, std::vector<int>, std::less<>> consumers;

  // "step[1] (model 'b')", the way errors name a step.
  std::string StepLabel(int step) const;
  // `sequence_steps[i]`: step i's model takes sequences (missing: false).
  static std::shared_ptr<const EnsemblePlan> FromConfig(const inference::ModelConfig& config,
                                                        const std::vector<bool>& sequence_steps);
};

class EnsembleScheduler final : public Scheduler {
 public:
  // `submitter` takes the step requests and outlives the scheduler. `sequence_steps` as EnsemblePlan::FromConfig.
  EnsembleScheduler(const inference::ModelConfig& config, RequestSubmitter* submitter,
                    const std::vector<bool>& sequence_steps = {});
  ~EnsembleScheduler() override = default;

  // Starts a run of `request`; its failures (a step refused or failing)
  // reach the client as an error response naming the step and model.
  Status Enqueue(InferenceRequest* request) override;
  // Runs not yet released.
  size_t InflightCount() const override { return runs_->load(); }
  size_t QueuedCount() const override { return 0; }
  // Refuses new requests; runs under way finish.
  void Stop() override { stopped_.store(true); }

 private:
  const std::shared_ptr<const EnsemblePlan> plan_;
  RequestSubmitter* const submitter_;
  // Shared with the runs, which may outlive the scheduler by a few
  // instructions after releasing their client request.
  const std::shared_ptr<std::atomic<size_t>> runs_ = std::make_shared<std::atomic<size_t>>(0);
  std::atomic<bool> stopped_{false};
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_ENSEMBLE_SCHEDULER_H_
