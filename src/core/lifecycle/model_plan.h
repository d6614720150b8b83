// What loading a model folder would do, decided without loading anything: its
// configuration read (or taken from a load request's JSON), normalized and
// validated, and the versions its policy selects. ModelLoader acts on a plan;
// inferd-check-config only reports it. Stateless; thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_MODEL_PLAN_H_
#define INFERD_CORE_LIFECYCLE_MODEL_PLAN_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inferd/base/status.h"
#include "core/config/config_context.h"
#include "core/repository/model_repository.h"
#include "model_config.pb.h"

namespace inferd {

struct ModelPlan {
  inference::ModelConfig config;
  ConfigContext context;
  // The backend completes the configuration at load (no config.pbtxt and
  // auto-completion on): `config` holds only the name so far.
  bool completed_by_backend = false;
  std::vector<int64_t> load;  // versions to load, ascending
  // Versions the policy names that have no folder, each with its reason.
  std::vector<std::pair<int64_t, std::string>> missing;
};

// The plan for the model at `location`. An error is the reason the model as a
// whole cannot load: a broken config.pbtxt naming file, line and field; or,
// NOT_FOUND, no version folder at all (the configuration itself was fine). A non-empty `config_name` reads
// "<folder>/configs/<config_name>.pbtxt" where it exists (--model-config-name).
StatusOr<ModelPlan> PlanModel(const ModelLocation& location,
                              const std::optional<std::string>& config_json, bool strict_config,
                              const std::string& config_name = "");

// The configuration file of the model folder `dir`: configs/<config_name>.pbtxt
// when `config_name` is set and that file exists, else config.pbtxt.
std::filesystem::path ModelConfigPath(const std::filesystem::path& dir,
                                      const std::string& config_name);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_PLAN_H_
