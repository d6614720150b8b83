// The fil backend's entry points: tree ensembles (XGBoost, LightGBM) served
// as Triton's FIL backend serves them, on the CPU. Model initialize reads the
// configuration (fil_settings.h), finds the model file and loads it once to
// check it against the configuration; each instance loads its own forest
// (forest.h) and executes whole batches (batch_runner.h). Every entry point
// catches what it might throw, so no exception crosses the ABI.
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "batch_runner.h"
#include "common/config_messages.h"
#include "common/model_loading.h"
#include "common/entry_points.h"
#include "fil_settings.h"
#include "forest.h"
#include "inferd/backend.h"
#include "output_transform.h"

namespace inferd::fil {
namespace {

namespace fs = std::filesystem;

using backend_common::MakeError;

template <typename Fn>
INFERD_Error* Guarded(Fn&& fn) {
  return backend_common::GuardedCall("fil", std::forward<Fn>(fn));
}

// One loaded model version. Constant after Create; instances read it.
struct ModelState {
  FilSettings settings;
  std::string path;          //!< the model file
  std::string error_prefix;  //!< "model 'm' version 1: "
};

// Checks a loaded forest against the configuration.
std::string CheckForest(const FilSettings& settings, const Forest& forest) {
  if (forest.features() != settings.features) {
    return "input '" + settings.input_name + "' has dims [ " + std::to_string(settings.features) +
           " ] but the model has " + std::to_string(forest.features()) + " features";
  }
  if (forest.class_ids() && (!settings.output_class || settings.predict_proba)) {
    return "the model predicts class ids (objective multi:softmax): set output_class true and "
           "predict_proba false, or train with multi:softprob";
  }
  return CheckOutputWidth(settings, forest.width());
}

INFERD_Error* CreateModelState(INFERD_Model* model, std::unique_ptr<ModelState>* out) {
  auto state = std::make_unique<ModelState>();
  if (auto* err = backend_common::RequestErrorPrefix(model, &state->error_prefix)) return err;
  fs::path folder;
  if (auto* err = backend_common::VersionFolder(model, &folder)) return err;
  std::string json;
  if (auto* err = backend_common::ReadModelConfigJson(model, &json)) return err;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (std::string problem = ParseFilSettings(json, cores, &state->settings); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, problem);
  }
  const fs::path file = folder / state->settings.model_filename;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return MakeError(INFERD_ERROR_NOT_FOUND,
                     "the model file " + file.string() + " does not exist (model_type " +
                         ModelTypeName(state->settings.model_type) + " loads <version>/" +
                         state->settings.model_filename + ")");
  }
  state->path = file.string();
  std::unique_ptr<Forest> forest;
  if (std::string problem = Forest::Load(state->settings, state->path, &forest);
      !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, problem);
  }
  if (std::string problem = CheckForest(state->settings, *forest); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "the configuration does not fit " + state->path + ": " + problem);
  }
  *out = std::move(state);
  return nullptr;
}

// One instance: its own forest.
struct InstanceState {
  const ModelState& model;
  std::unique_ptr<Forest> forest;
};

}  // namespace
}  // namespace inferd::fil

namespace common = inferd::backend_common;
using inferd::fil::Guarded;
using inferd::fil::InstanceState;
using inferd::fil::MakeError;
using inferd::fil::ModelState;

extern "C" {

INFERD_EXPORT INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    std::unique_ptr<ModelState> state;
    if (auto* err = inferd::fil::CreateModelState(model, &state)) return err;
    return common::GiveModelState(model, std::move(state));
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return Guarded([&] { return common::DeleteModelState<ModelState>(model); });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceInitialize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    const ModelState* state = nullptr;
    if (auto* err = common::ModelStateOf(instance, &state)) return err;
    auto runner = std::make_unique<InstanceState>(InstanceState{*state, nullptr});
    if (std::string problem =
            inferd::fil::Forest::Load(state->settings, state->path, &runner->forest);
        !problem.empty()) {
      return MakeError(INFERD_ERROR_INVALID_ARG, problem);
    }
    return common::GiveInstanceState(instance, std::move(runner));
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return Guarded([&] { return common::DeleteInstanceState<InstanceState>(instance); });
}

// Execute answers and releases every request itself (batch_runner.h).
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                        INFERD_Request** requests,
                                                        uint32_t request_count) {
  return Guarded([&] {
    return common::ExecuteOnInstance<InstanceState>(
        instance, "fil backend: no forest", [&](InstanceState& state) {
          inferd::fil::ExecuteBatch(state.model.settings, *state.forest, state.model.error_prefix,
                                    instance, requests, request_count);
        });
  });
}

}  // extern "C"
