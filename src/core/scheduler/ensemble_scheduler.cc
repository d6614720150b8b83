#include "core/scheduler/ensemble_scheduler.h"

#include <map>

#include "core/scheduler/ensemble_run.h"

namespace inferd {

std::string EnsemblePlan::StepLabel(int step) const {
  return "step[" + std::to_string(step) + "] (model '" + steps[step].model_name + "')";
}

std::shared_ptr<const EnsemblePlan> EnsemblePlan::FromConfig(
    const inference::ModelConfig& config, const std::vector<bool>& sequence_steps) {
  auto plan = std::make_shared<EnsemblePlan>();
  plan->ensemble_name = config.name();
  plan->decoupled = config.model_transaction_policy().decoupled();
  const auto& steps = config.ensemble_scheduling().step();
  for (int i = 0; i < steps.size(); ++i) {
    Step& step = plan->steps.emplace_back();
    step.model_name = steps[i].model_name();
    step.model_namespace = steps[i].model_namespace();
    step.model_version = steps[i].model_version();
    step.sequences = static_cast<size_t>(i) < sequence_steps.size() && sequence_steps[i];
    // Sorted by model tensor name: maps have no order of their own.
    std::map<std::string, std::string> inputs(steps[i].input_map().begin(),
                                              steps[i].input_map().end());
    std::map<std::string, std::string> outputs(steps[i].output_map().begin(),
                                               steps[i].output_map().end());
    step.inputs.assign(inputs.begin(), inputs.end());
    step.outputs.assign(outputs.begin(), outputs.end());
    for (const auto& [name, tensor] : step.inputs) plan->consumers[tensor].push_back(i);
    for (const auto& [name, tensor] : step.outputs) plan->producer[tensor] = i;
  }
  return plan;
}

EnsembleScheduler::EnsembleScheduler(const inference::ModelConfig& config,
                                     RequestSubmitter* submitter,
                                     const std::vector<bool>& sequence_steps)
    : plan_(EnsemblePlan::FromConfig(config, sequence_steps)),
      submitter_(submitter) {}

Status EnsembleScheduler::Enqueue(InferenceRequest* request) {
  if (stopped_.load()) {
    return Status::Unavailable("ensemble '" + plan_->ensemble_name + "' is being unloaded");
  }
  runs_->fetch_add(1);
  auto run = std::make_shared<EnsembleRun>(plan_, submitter_, request, runs_);
  run->Start();
  return Status::Ok();
}

}  // namespace inferd
