#include "model_settings.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <utility>

#include <rapidjson/document.h>

#include "backend_io.h"

namespace inferd::python {

namespace {

const char kDefaultPython[] = "/usr/bin/python3";

std::string Parameter(const rapidjson::Value& config, const char* name) {
  if (!config.HasMember("parameters") || !config["parameters"].IsObject()) return "";
  const auto& parameters = config["parameters"];
  if (!parameters.HasMember(name) || !parameters[name].IsObject()) return "";
  const auto& p = parameters[name];
  if (!p.HasMember("string_value") || !p["string_value"].IsString()) return "";
  return p["string_value"].GetString();
}

// Triton's $$TRITON_MODEL_DIRECTORY in EXECUTION_ENV_PATH is the model folder.
std::string ExpandModelDirectory(std::string path, const std::string& model_dir) {
  static const std::string kVar = "$$TRITON_MODEL_DIRECTORY";
  for (size_t at; (at = path.find(kVar)) != std::string::npos;) path.replace(at, kVar.size(), model_dir);
  return path;
}

Status ResolvePython(const rapidjson::Value& config, ModelSettings* settings) {
  const std::string env = Parameter(config, "EXECUTION_ENV_PATH");
  if (env.empty()) {
    settings->python = kDefaultPython;
    return Status::Ok();
  }
  const std::filesystem::path path = ExpandModelDirectory(env, settings->repository_path);
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    return Status::InvalidArg(
        "parameter EXECUTION_ENV_PATH names '" + path.string() +
        "', which is not a folder: give a virtual environment folder (packed archives are "
        "not supported)");
  }
  const std::filesystem::path python = path / "bin" / "python3";
  if (access(python.c_str(), X_OK) != 0) {
    return Status::InvalidArg("parameter EXECUTION_ENV_PATH: '" + python.string() +
                              "' is not an executable Python");
  }
  settings->python = python.string();
  return Status::Ok();
}

Status BackendSizes(INFERD_Model* model, ModelSettings* settings) {
  INFERD_Backend* backend = nullptr;
  if (Status s = FromError(INFERD_ModelBackend(model, &backend)); !s.ok()) return s;
  INFERD_Message* message = nullptr;
  if (Status s = FromError(INFERD_BackendConfig(backend, &message)); !s.ok()) return s;
  const char* json = nullptr;
  size_t size = 0;
  Status s = FromError(INFERD_MessageSerializeToJson(message, &json, &size));
  rapidjson::Document doc;
  if (s.ok()) doc.Parse(json, size);
  INFERD_MessageDelete(message);
  if (!s.ok()) return s;
  if (doc.IsObject() && doc.HasMember("shm-region-size") && doc["shm-region-size"].IsString()) {
    const std::string text = doc["shm-region-size"].GetString();
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || bytes < (1 << 20)) {
      return Status::InvalidArg("backend config python,shm-region-size='" + text +
                                "': give a number of bytes, at least 1048576");
    }
    settings->shm_request_bytes = settings->shm_ring_bytes = bytes;
  }
  for (auto [key, field] : {std::pair{"spin-us", &settings->spin_us},
                             std::pair{"execute-spin-us", &settings->execute_spin_us}}) {
    if (!doc.IsObject() || !doc.HasMember(key) || !doc[key].IsString()) continue;
    const std::string text = doc[key].GetString();
    char* end = nullptr;
    const unsigned long long us = std::strtoull(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || us > 10'000) {
      return Status::InvalidArg(std::string("backend config python,") + key + "='" + text +
                                "': give microseconds, 0 to 10000");
    }
    *field = us;
  }
  return Status::Ok();
}

// config[object][field] when it is a boolean; false otherwise.
bool NestedBool(const rapidjson::Value& config, const char* object, const char* field) {
  if (!config.HasMember(object) || !config[object].IsObject()) return false;
  const rapidjson::Value& inner = config[object];
  return inner.HasMember(field) && inner[field].IsBool() && inner[field].GetBool();
}

}  // namespace

std::string BackendLibraryDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&BackendLibraryDir), &info) == 0 || !info.dli_fname) {
    return ".";
  }
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

std::vector<std::string> ModelSettings::StubArgv() const {
  // -u: print() reaches the server's log at once, not when a buffer fills.
  return {python, "-u", stub_script};
}

std::string ModelSettings::Label() const {
  return "python model '" + model_name + "' version " + std::to_string(version);
}

Status LoadModelSettings(INFERD_Model* model, ModelSettings* settings) {
  const char* name = nullptr;
  const char* path = nullptr;
  if (Status s = FromError(INFERD_ModelName(model, &name)); !s.ok()) return s;
  if (Status s = FromError(INFERD_ModelVersion(model, &settings->version)); !s.ok()) return s;
  if (Status s = FromError(INFERD_ModelRepositoryPath(model, &path)); !s.ok()) return s;
  settings->model_name = name;
  settings->repository_path = path;
  INFERD_Message* message = nullptr;
  if (Status s = FromError(INFERD_ModelConfig(model, &message)); !s.ok()) return s;
  const char* json = nullptr;
  size_t size = 0;
  Status s = FromError(INFERD_MessageSerializeToJson(message, &json, &size));
  if (s.ok()) settings->config_json.assign(json, size);
  INFERD_MessageDelete(message);
  if (!s.ok()) return s;
  rapidjson::Document config;
  config.Parse(settings->config_json.c_str(), settings->config_json.size());
  if (!config.IsObject()) return Status::Internal("the model configuration is not a JSON object");
  std::string file = "model.py";
  if (config.HasMember("default_model_filename") && config["default_model_filename"].IsString() &&
      config["default_model_filename"].GetStringLength() > 0) {
    file = config["default_model_filename"].GetString();
  }
  settings->model_file = (std::filesystem::path(settings->repository_path) /
                          std::to_string(settings->version) / file)
                             .string();
  settings->decoupled = NestedBool(config, "model_transaction_policy", "decoupled");
  settings->iterative = NestedBool(config, "sequence_batching", "iterative_sequence");
  settings->stub_script = BackendLibraryDir() + "/inferd_python_stub.py";
  if (Status r = ResolvePython(config, settings); !r.ok()) return r;
  return BackendSizes(model, settings);
}

}  // namespace inferd::python
