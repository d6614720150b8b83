#include "core/lifecycle/repository_check.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/backend/backend_manager.h"
#include "core/config/closest_name.h"
#include "core/config/config_error.h"
#include "core/config/ensemble_validator.h"
#include "core/config/model_platform.h"
#include "core/lifecycle/model_plan.h"
#include "core/repository/model_repository.h"

namespace inferd {
namespace {

// The first existing library for `version`, or "" with *looked set to the
// paths tried, comma-separated.
std::string FindBackend(const BackendManager& backends, const ModelPlan& plan, int64_t version,
                        std::string* looked) {
  for (const auto& path :
       backends.Candidates(plan.config.backend(), plan.context.model_dir, version)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path.string();
    *looked += (looked->empty() ? "" : ", ") + path.string();
  }
  return "";
}

// An ensemble's step graph against the configurations its composing models
// have in the same repositories.
void CheckEnsemble(const ModelPlan& plan, const std::vector<ModelLocation>& locations,
                   const ModelSource& source, bool strict_config,
                   const std::string& config_name, ModelCheck* check) {
  std::map<std::string, inference::ModelConfig> configs;
  Status valid = ValidateEnsemble(
      plan.config,
      [&](const std::string& name, int64_t) -> StatusOr<const inference::ModelConfig*> {
        auto location = std::find_if(locations.begin(), locations.end(),
                                     [&](const ModelLocation& l) { return l.name == name; });
        if (location == locations.end()) {
          return Status::NotFound("model '" + name + "' is not in the repositories");
        }
        RETURN_IF_ERROR(source.Materialize(*location));
        ASSIGN_OR_RETURN(ModelPlan composing, PlanModel(*location, std::nullopt, strict_config,
                                                             config_name));
        return &(configs[name] = std::move(composing.config));
      });
  if (!valid.ok()) check->errors.push_back(valid.message());
  check->versions = plan.load;
}

// The backends installed in `directory` (its folders), for "did you mean".
std::string BackendFix(const std::filesystem::path& directory, const std::string& backend) {
  std::vector<std::string> installed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    if (entry.is_directory(ec)) installed.push_back(entry.path().filename().string());
  }
  const std::string closest = ClosestName(backend, installed);
  if (!closest.empty() && closest != backend) return "did you mean backend: \"" + closest + "\"?";
  return "install libinferd_" + backend + ".so under --backend-directory, or put it in the "
         "model's folder";
}

ModelCheck CheckModel(const ModelLocation& location, const std::vector<ModelLocation>& locations,
                      const ModelSource& source, bool strict_config,
                      const std::string& config_name, const BackendManager& backends,
                      const std::filesystem::path& backend_directory) {
  ModelCheck check;
  check.name = location.name;
  if (Status copied = source.Materialize(location); !copied.ok()) {
    check.errors.push_back(copied.message());
    return check;
  }
  auto planned = PlanModel(location, std::nullopt, strict_config, config_name);
  if (!planned.ok()) {
    check.errors.push_back(location.name + ": " + planned.status().message());
    return check;
  }
  const ModelPlan& plan = planned.value();
  check.backend = plan.config.backend();
  check.completed_by_backend = plan.completed_by_backend;
  for (const auto& [version, reason] : plan.missing) check.errors.push_back(reason);
  if (plan.config.platform() == kEnsemblePlatform) {
    CheckEnsemble(plan, locations, source, strict_config, config_name, &check);
    return check;
  }
  for (int64_t version : plan.load) {
    std::string looked;
    const std::string library = FindBackend(backends, plan, version, &looked);
    if (library.empty()) {
      check.errors.push_back("model '" + location.name + "' version " + std::to_string(version) +
                             ": backend '" + check.backend + "' not found (looked for " + looked +
                             ")" + std::string(kFixSeparator) +
                             BackendFix(backend_directory, check.backend));
    } else if (std::find(check.libraries.begin(), check.libraries.end(), library) ==
               check.libraries.end()) {
      check.libraries.push_back(library);
    }
    check.versions.push_back(version);
  }
  return check;
}

void WriteProblem(const ConfigProblem& problem, rapidjson::Writer<rapidjson::StringBuffer>& w) {
  auto text = [&](const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.c_str(), value.size());
  };
  w.StartObject();
  text("file", problem.file);
  w.Key("line");
  w.Int(problem.line);
  w.Key("column");
  w.Int(problem.column);
  text("model", problem.model);
  text("field", problem.field);
  text("message", problem.message);
  text("fix", problem.fix);
  w.EndObject();
}

}  // namespace

StatusOr<std::vector<ModelCheck>> CheckRepository(const RepositoryCheckOptions& options) {
  const std::shared_ptr<const ModelSource> source =
      options.source != nullptr ? options.source
                                : std::make_shared<FolderSource>(options.repositories);
  ASSIGN_OR_RETURN(std::vector<ModelLocation> locations, source->List());
  // Only the search order is used: nothing is opened.
  const BackendManager backends(options.backend_directory, {});
  std::set<std::string> wanted(options.models.begin(), options.models.end());
  const bool every_model = wanted.empty();
  std::vector<ModelLocation> checked;
  for (const ModelLocation& location : locations) {
    if (every_model || wanted.erase(location.name) > 0) checked.push_back(location);
  }
  // An object store's models download side by side; each check's
  // Materialize then finds its copy (or reports why there is none).
  source->MaterializeEach(checked, [](size_t, const Status&) {});
  std::vector<ModelCheck> checks;
  for (const ModelLocation& location : checked) {
    checks.push_back(CheckModel(location, locations, *source, options.strict_model_config,
                                options.model_config_name, backends,
                                options.backend_directory));
  }
  for (const std::string& name : wanted) {
    ModelCheck& missing = checks.emplace_back();
    missing.name = name;
    missing.in_repository = false;
    missing.errors.push_back(name + ": no such model in the repositories");
  }
  return checks;
}

std::string RepositoryCheckJson(const std::vector<ModelCheck>& checks) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto strings = [&](const char* key, const std::vector<std::string>& values) {
    w.Key(key);
    w.StartArray();
    for (const std::string& value : values) w.String(value.c_str(), value.size());
    w.EndArray();
  };
  w.StartObject();
  w.Key("models");
  w.StartArray();
  for (const ModelCheck& check : checks) {
    w.StartObject();
    w.Key("name");
    w.String(check.name.c_str(), check.name.size());
    w.Key("in_repository");
    w.Bool(check.in_repository);
    w.Key("ok");
    w.Bool(check.ok());
    strings("errors", check.errors);
    w.Key("problems");
    w.StartArray();
    for (const std::string& error : check.errors) WriteProblem(ParseConfigProblem(error), w);
    w.EndArray();
    w.Key("versions");
    w.StartArray();
    for (int64_t version : check.versions) w.Int64(version);
    w.EndArray();
    w.Key("backend");
    w.String(check.backend.c_str(), check.backend.size());
    strings("libraries", check.libraries);
    w.Key("completed_by_backend");
    w.Bool(check.completed_by_backend);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd
