#include "core/lifecycle/model_loader.h"

#include "core/backend/backend_manager.h"
#include "core/common/logging.h"
#include "core/config/ensemble_validator.h"
#include "core/config/model_platform.h"
#include "core/lifecycle/model_plan.h"
#include "core/model/model_version.h"
#include "core/trace/trace_manager.h"

namespace inferd {

Status ModelLoader::ValidateComposing(const LoadRequest& request,
                                      const inference::ModelConfig& config,
                                      std::vector<bool>* sequence_steps) const {
  // Keeps each composing version (and so its config) alive while validating;
  // the lookups come in step order.
  std::vector<std::shared_ptr<ModelVersion>> held;
  Status valid = ValidateEnsemble(
      config, [&](const std::string& name,
                  int64_t version) -> StatusOr<const inference::ModelConfig*> {
        if (!request.composing) return Status::Unavailable("composing models cannot be loaded here");
        ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, request.composing(name, version));
        held.push_back(std::move(model));
        return &held.back()->config();
      });
  if (!valid.ok()) return valid;
  sequence_steps->clear();
  for (const auto& model : held) sequence_steps->push_back(model->takes_sequences());
  return Status::Ok();
}

PreparedLoad ModelLoader::Prepare(const ModelLocation& location, bool open_backends) const {
  PreparedLoad prepared;
  prepared.plan = PlanModel(location, std::nullopt, context_.strict_config, context_.config_name);
  if (!open_backends || !prepared.plan.ok()) return prepared;
  const inference::ModelConfig& config = prepared.plan->config;
  if (config.platform() == kEnsemblePlatform) return prepared;
  for (int64_t version : prepared.plan->load) {
    prepared.backends.emplace(
        version, context_.services->backends->Acquire(config.backend(), location.dir, version));
  }
  return prepared;
}

StatusOr<std::shared_ptr<BackendLibrary>> ModelLoader::AcquireBackend(const LoadRequest& request,
                                                                      const std::string& backend,
                                                                      int64_t version) const {
  if (request.prepared != nullptr) {
    auto found = request.prepared->backends.find(version);
    if (found != request.prepared->backends.end()) return found->second;
  }
  return context_.services->backends->Acquire(backend, request.location.dir, version);
}

ModelLoadResult ModelLoader::Load(const LoadRequest& request) const {
  const ModelLocation& location = request.location;
  ModelLoadResult result;
  result.name = location.name;
  std::optional<StatusOr<ModelPlan>> own_plan;
  if (request.prepared == nullptr) {
    own_plan.emplace(PlanModel(location, request.config_json, context_.strict_config,
                               context_.config_name));
  }
  const StatusOr<ModelPlan>& planned = own_plan ? *own_plan : request.prepared->plan;
  if (!planned.ok()) {
    result.error = planned.status().message();
    result.reached_lifecycle = planned.status().code() == Status::Code::kNotFound;
    return result;
  }
  const ModelPlan& plan = planned.value();
  inference::ModelConfig config = plan.config;
  if (config.platform() == kEnsemblePlatform && request.step_namespace) {
    for (auto& step : *config.mutable_ensemble_scheduling()->mutable_step()) {
      step.set_model_namespace(request.step_namespace(step.model_name()));
    }
  }
  for (const auto& [missing, reason] : plan.missing) {
    result.versions.push_back({missing, nullptr, reason, false, true});
  }
  result.reached_lifecycle = true;
  for (int64_t version : plan.load) {
    ModelLoadResult::Version& out = result.versions.emplace_back();
    out.version = version;
    if (auto reuse = request.reusable.find(version); reuse != request.reusable.end()) {
      out.model = reuse->second;
      out.reused = true;
      continue;
    }
    // An ensemble whose steps do not fit its composing models is refused
    // before anything loads (Triton: by its dependency graph).
    if (!LoadVersion(request, plan, config, &out)) result.reached_lifecycle = false;
  }
  return result;
}

bool ModelLoader::LoadVersion(const LoadRequest& request, const ModelPlan& plan,
                              const inference::ModelConfig& config,
                              ModelLoadResult::Version* out) const {
  const ModelLocation& location = request.location;
  const int64_t version = out->version;
  std::shared_ptr<BackendLibrary> backend;
  std::vector<bool> sequence_steps;
  if (config.platform() == kEnsemblePlatform) {
    Status valid = ValidateComposing(request, config, &sequence_steps);
    if (!valid.ok()) {
      out->error = valid.message();
      return false;
    }
  } else {
    auto acquired = AcquireBackend(request, config.backend(), version);
    if (!acquired.ok()) {
      out->error = "model '" + location.name + "' version " + std::to_string(version) + ": " +
                   acquired.status().message();
      return true;
    }
    backend = std::move(acquired).value();
  }
  const ModelServices& services = *context_.services;
  ModelVersionSpec spec{location.name, version, location.dir, config, std::move(backend),
                        plan.context};
  if (services.tracer != nullptr) spec.trace_entry = services.tracer->EntryFor(location.name);
  spec.sequence_steps = std::move(sequence_steps);
  spec.services = &services;
  auto loaded = ModelVersion::Load(spec);
  for (uint32_t retry = 1; !loaded.ok() && retry <= context_.load_retries; ++retry) {
    LOG_WARNING("{}; retrying the load ({} of {}, --model-load-retry-count)",
                loaded.status().message(), retry, context_.load_retries);
    loaded = ModelVersion::Load(spec);
  }
  if (loaded.ok()) {
    out->model = std::move(loaded).value();
  } else {
    out->error = loaded.status().message();
  }
  return true;
}

}  // namespace inferd
