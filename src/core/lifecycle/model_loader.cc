#include "core/lifecycle/model_loader.h"

#include "core/backend/backend_manager.h"
#include "core/common/logging.h"
#include "core/config/config_context.h"
#include "core/config/model_config_json.h"
#include "core/config/model_config_normalizer.h"
#include "core/config/model_config_parser.h"
#include "core/config/model_config_validator.h"
#include "core/model/model_version.h"
#include "core/repository/version_policy.h"
#include "core/server/inference_server.h"

namespace inferd {

ModelLoader::ModelLoader(InferenceServer* server, BackendManager* backends, bool strict_config)
    : server_(server), backends_(backends), strict_config_(strict_config) {}

ModelLoadResult ModelLoader::Load(const LoadRequest& request) const {
  const ModelLocation& location = request.location;
  ModelLoadResult result;
  result.name = location.name;
  if (!location.error.empty()) {
    result.error = location.error;
    return result;
  }
  ConfigContext ctx;
  ctx.model_name = location.name;
  ctx.model_dir = location.dir;
  const std::filesystem::path config_path = location.dir / "config.pbtxt";
  ctx.file_label = config_path.string();
  ctx.allow_incomplete_io = !strict_config_;
  inference::ModelConfig config;
  std::error_code ec;
  if (request.config_json) {
    ctx.file_label = "the config given to the load request";
    ctx.allow_incomplete_io = false;
    Status parsed = ModelConfigFromJson(*request.config_json, &config);
    if (!parsed.ok()) {
      result.error = "model '" + location.name + "': " + parsed.message();
      return result;
    }
  } else if (!strict_config_ && !std::filesystem::exists(config_path, ec)) {
    config.set_name(location.name);  // the backend completes the rest
  } else {
    auto parsed = ReadModelConfigFile(config_path);
    if (!parsed.ok()) {
      result.error = parsed.status().message();
      return result;
    }
    config = std::move(parsed).value();
  }
  Status status = NormalizeModelConfig(ctx, &config);
  if (status.ok()) status = ValidateModelConfig(ctx, config);
  if (!status.ok()) {
    result.error = status.message();
    return result;
  }
  if (config.platform() == "ensemble") {
    result.error = "model '" + location.name + "': ensemble models are not supported yet";
    return result;
  }
  const std::vector<int64_t> on_disk = ListVersionFolders(location.dir);
  VersionSelection selection = SelectVersions(config.version_policy(), on_disk);
  for (int64_t missing : selection.missing) {
    result.versions.push_back({missing, nullptr,
                               "model '" + location.name + "' version " +
                                   std::to_string(missing) +
                                   ": the version policy asks for it but " +
                                   (location.dir / std::to_string(missing)).string() +
                                   " does not exist"});
  }
  if (selection.load.empty() && selection.missing.empty()) {
    result.error = "model '" + location.name + "': no version folder to load in " +
                   location.dir.string() + " (version folders are named 1, 2, ...)";
    return result;
  }
  for (int64_t version : selection.load) {
    ModelLoadResult::Version& out = result.versions.emplace_back();
    out.version = version;
    if (auto reuse = request.reusable.find(version); reuse != request.reusable.end()) {
      out.model = reuse->second;
      out.reused = true;
      continue;
    }
    auto backend = backends_->Acquire(config.backend(), location.dir, version);
    if (!backend.ok()) {
      out.error = "model '" + location.name + "' version " + std::to_string(version) + ": " +
                  backend.status().message();
      continue;
    }
    ModelVersionSpec spec{location.name, version, location.dir, config,
                          server_,       std::move(backend).value(), ctx};
    if (server_ != nullptr) spec.trace_entry = server_->tracer().EntryFor(location.name);
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
