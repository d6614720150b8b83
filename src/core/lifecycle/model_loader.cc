#include "core/lifecycle/model_loader.h"

#include "core/backend/backend_manager.h"
#include "core/lifecycle/model_plan.h"
#include "core/model/model_version.h"
#include "core/timing/queue_sweeper.h"
#include "core/trace/trace_manager.h"

namespace inferd {

ModelLoadResult ModelLoader::Load(const LoadRequest& request) const {
  const ModelLocation& location = request.location;
  ModelLoadResult result;
  result.name = location.name;
  StatusOr<ModelPlan> planned = PlanModel(location, request.config_json, context_.strict_config);
  if (!planned.ok()) {
    result.error = planned.status().message();
    return result;
  }
  const ModelPlan& plan = planned.value();
  const inference::ModelConfig& config = plan.config;
  for (const auto& [missing, reason] : plan.missing) {
    result.versions.push_back({missing, nullptr, reason});
  }
  for (int64_t version : plan.load) {
    ModelLoadResult::Version& out = result.versions.emplace_back();
    out.version = version;
    if (auto reuse = request.reusable.find(version); reuse != request.reusable.end()) {
      out.model = reuse->second;
      out.reused = true;
      continue;
    }
    auto backend = context_.backends->Acquire(config.backend(), location.dir, version);
    if (!backend.ok()) {
      out.error = "model '" + location.name + "' version " + std::to_string(version) + ": " +
                  backend.status().message();
      continue;
    }
    ModelVersionSpec spec{location.name, version, location.dir, config,
                          context_.server, std::move(backend).value(), plan.context};
    if (context_.tracer != nullptr) spec.trace_entry = context_.tracer->EntryFor(location.name);
    spec.sweeper = context_.sweeper;
    if (context_.sweeper != nullptr) spec.clock = &context_.sweeper->clock();
    auto loaded = ModelVersion::Load(std::move(spec));
    if (loaded.ok()) {
      out.model = std::move(loaded).value();
    } else {
      out.error = loaded.status().message();
    }
  }
  return result;
}

}  // namespace inferd
