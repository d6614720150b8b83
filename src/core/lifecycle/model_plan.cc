#include "core/lifecycle/model_plan.h"

#include <filesystem>

#include "core/config/model_config_json.h"
#include "core/config/model_config_normalizer.h"
#include "core/config/model_config_parser.h"
#include "core/config/model_config_validator.h"
#include "core/repository/version_policy.h"

namespace inferd {

std::filesystem::path ModelConfigPath(const std::filesystem::path& dir,
                                      const std::string& config_name) {
  if (!config_name.empty()) {
    std::filesystem::path custom = dir / "configs" / (config_name + ".pbtxt");
    std::error_code ec;
    if (std::filesystem::is_regular_file(custom, ec)) return custom;
  }
  return dir / "config.pbtxt";
}

StatusOr<ModelPlan> PlanModel(const ModelLocation& location,
                              const std::optional<std::string>& config_json, bool strict_config,
                              const std::string& config_name) {
  if (!location.error.empty()) return Status::InvalidArg(location.error);
  ModelPlan plan;
  ConfigContext& ctx = plan.context;
  ctx.model_name = location.name;
  ctx.model_dir = location.dir;
  const std::filesystem::path config_path = ModelConfigPath(location.dir, config_name);
  ctx.file_label = config_path.string();
  ctx.allow_incomplete_io = !strict_config;
  inference::ModelConfig& config = plan.config;
  std::error_code ec;
  if (config_json) {
    ctx.file_label = "the config given to the load request";
    ctx.allow_incomplete_io = false;
    Status parsed = ModelConfigFromJson(*config_json, &config);
    if (!parsed.ok()) return parsed.WithPrefix("model '" + location.name + "': ");
  } else if (!strict_config && !std::filesystem::exists(config_path, ec)) {
    config.set_name(location.name);  // the backend completes the rest
    plan.completed_by_backend = true;
  } else {
    ASSIGN_OR_RETURN(config, ReadModelConfigFile(config_path, &ctx.locations));
  }
  RETURN_IF_ERROR(NormalizeModelConfig(ctx, &config));
  RETURN_IF_ERROR(ValidateModelConfig(ctx, config));
  const std::vector<int64_t> on_disk = ListVersionFolders(location.dir);
  VersionSelection selection = SelectVersions(config.version_policy(), on_disk);
  for (int64_t missing : selection.missing) {
    plan.missing.emplace_back(missing, "model '" + location.name + "' version " +
                                           std::to_string(missing) +
                                           ": the version policy asks for it but " +
                                           (location.dir / std::to_string(missing)).string() +
                                           " does not exist");
  }
  if (selection.load.empty() && selection.missing.empty()) {
    return Status::NotFound("model '" + location.name + "': no version folder to load in " +
                              location.dir.string() + " (version folders are named 1, 2, ...)");
  }
  plan.load = std::move(selection.load);
  return plan;
}

}  // namespace inferd
