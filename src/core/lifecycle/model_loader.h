// Turns a model folder into loaded versions: plans it (model_plan.h: the
// validated config and the versions its policy selects), finds the backend and
// loads each selected version. Reports every failure as a reason; never throws a model's
// failure at the server. Thread-safe (different models load in parallel).
#ifndef INFERD_CORE_LIFECYCLE_MODEL_LOADER_H_
#define INFERD_CORE_LIFECYCLE_MODEL_LOADER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/lifecycle/model_plan.h"
#include "core/model/model_services.h"
#include "core/repository/model_repository.h"
#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

class BackendLibrary;
class ModelVersion;

// What a load of a model folder (from its own config, no override) can work
// out before it starts: the plan, and the backend libraries its versions run
// on. The server's start prepares every model before loading any
// (ModelLoader::Prepare), so that the configs are read while a backend
// initializes in the background (the onnxruntime backend's environment).
struct PreparedLoad {
  StatusOr<ModelPlan> plan = Status::Internal("the load was not planned");
  // Version -> its backend library, or why there is none; versions not in it
  // (ensembles, backends not opened ahead) acquire theirs when they load.
  std::map<int64_t, StatusOr<std::shared_ptr<BackendLibrary>>> backends;
};

// What to load: a model folder, optionally with its configuration replaced.
struct LoadRequest {
  ModelLocation location;
  // JSON replacing config.pbtxt (the repository API's "config" parameter).
  std::optional<std::string> config_json;
  // Versions already serving whose files and config did not change: the
  // result hands them back instead of loading them again.
  std::map<int64_t, std::shared_ptr<ModelVersion>> reusable;
  // For an ensemble: the READY version `version` (-1: latest) of composing
  // model `name`, loaded first where the control mode allows (the lifecycle).
  // Unset: an ensemble fails to load.
  std::function<StatusOr<std::shared_ptr<ModelVersion>>(const std::string& name, int64_t version)>
      composing;
  // With --model-namespacing: the repository (namespace) whose model an
  // ensemble step naming `name` runs; the loader writes it into each step's
  // model_namespace. Unset: steps name models without a namespace.
  std::function<std::string(const std::string& name)> step_namespace;
  // Prepare()'s work for `location`, done already; null: Load plans. Only
  // for a load without `config_json`.
  std::shared_ptr<const PreparedLoad> prepared;
};

struct ModelLoadResult {
  struct Version {
    int64_t version = 0;
    std::shared_ptr<ModelVersion> model;  // null when the load failed
    std::string error;
    bool reused = false;  // `model` was already serving and is kept as it is
    // Named by the version policy but without a folder: not loaded at all.
    bool skipped = false;
  };
  std::string name;
  std::string error;  // failure of the model as a whole (its config, say)
  // The configuration was accepted (an ensemble's against its composing
  // models too), or it lacked only a version folder: the load got as far as
  // Triton's model lifecycle, and strict readiness counts the model.
  bool reached_lifecycle = false;
  std::vector<Version> versions;
};

// How a loader loads: the server's services (model_services.h, by pointer:
// the server keeps them) and its flags on configs and retries.
struct LoaderContext {
  const ModelServices* services = nullptr;  // required, with its `backends`
  // With false (the server's default) a model may lack config.pbtxt (or parts
  // of it) and its backend completes the configuration from the model file.
  bool strict_config = true;
  // "<model folder>/configs/<name>.pbtxt" is read instead of config.pbtxt
  // where it exists (--model-config-name); empty: config.pbtxt.
  std::string config_name = {};
  // Further attempts at a version whose load failed (--model-load-retry-count).
  uint32_t load_retries = 0;
};

class ModelLoader {
 public:
  explicit ModelLoader(LoaderContext context) : context_(context) {}
  ModelLoadResult Load(const LoadRequest& request) const;
  // The plan of the model at `location` from its own config and, with
  // `open_backends`, the backend library of each version it selects (opened
  // and initialized as a load would; a failure is kept for the load to
  // report). Loads nothing.
  PreparedLoad Prepare(const ModelLocation& location, bool open_backends) const;
  const LoaderContext& context() const { return context_; }

 private:
  // An ensemble's step graph against its composing models' configs.
  // Fills `sequence_steps` (ModelVersionSpec) from the composing models.
  Status ValidateComposing(const LoadRequest& request, const inference::ModelConfig& config,
                           std::vector<bool>* sequence_steps) const;

  // Loads `version` of the model `request` names, as `plan` (with `config`,
  // the plan's with each ensemble step's namespace) says, into `out`. False
  // when an ensemble's steps do not fit its composing models (refused before
  // loading); a failure to load is in `out`.
  bool LoadVersion(const LoadRequest& request, const ModelPlan& plan,
                   const inference::ModelConfig& config, ModelLoadResult::Version* out) const;

  // The backend library of `version`: the one Prepare opened, else acquired now.
  StatusOr<std::shared_ptr<BackendLibrary>> AcquireBackend(const LoadRequest& request,
                                                           const std::string& backend,
                                                           int64_t version) const;

  const LoaderContext context_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_LOADER_H_
