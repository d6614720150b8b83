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
#include "fil_settings.h"
#include "forest.h"
#include "inferd/backend.h"
#include "output_transform.h"

namespace inferd::fil {
namespace {

namespace fs = std::filesystem;

INFERD_Error* MakeError(INFERD_Error_Code code, const std::string& message) {
  return INFERD_ErrorNew(code, message.c_str());
}

template <typename Fn>
INFERD_Error* Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return MakeError(INFERD_ERROR_INTERNAL, std::string("fil backend: ") + e.what());
  } catch (...) {
    return MakeError(INFERD_ERROR_INTERNAL, "fil backend: unknown exception");
  }
}

// One loaded model version. Constant after Create; instances read it.
struct ModelState {
  FilSettings settings;
  std::string path;          //!< the model file
  std::string error_prefix;  //!< "model 'm' version 1: "
};

INFERD_Error* ReadConfigJson(INFERD_Model* model, std::string* json) {
  INFERD_Message* message = nullptr;
  if (auto* err = INFERD_ModelConfig(model, &message)) return err;
  const char* base = nullptr;
  size_t size = 0;
  INFERD_Error* err = INFERD_MessageSerializeToJson(message, &base, &size);
  if (err == nullptr) json->assign(base, size);
  INFERD_ErrorDelete(INFERD_MessageDelete(message));
  return err;
}

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
  const char* name = nullptr;
  const char* dir = nullptr;
  uint64_t version = 0;
  if (auto* err = INFERD_ModelName(model, &name)) return err;
  if (auto* err = INFERD_ModelVersion(model, &version)) return err;
  if (auto* err = INFERD_ModelRepositoryPath(model, &dir)) return err;
  state->error_prefix = "model '" + std::string(name) + "' version " + std::to_string(version) + ": ";
  std::string json;
  if (auto* err = ReadConfigJson(model, &json)) return err;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (std::string problem = ParseFilSettings(json, cores, &state->settings); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, problem);
  }
  const fs::path file = fs::path(dir) / std::to_string(version) / state->settings.model_filename;
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

using inferd::fil::Guarded;
using inferd::fil::InstanceState;
using inferd::fil::MakeError;
using inferd::fil::ModelState;

extern "C" {

INFERD_EXPORT INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    std::unique_ptr<ModelState> state;
    if (auto* err = inferd::fil::CreateModelState(model, &state)) return err;
    if (auto* err = INFERD_ModelSetState(model, state.get())) return err;
    state.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelState(model, &state)) return err;
    delete static_cast<ModelState*>(state);
    return INFERD_ModelSetState(model, nullptr);
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceInitialize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    INFERD_Model* model = nullptr;
    void* model_state = nullptr;
    if (auto* err = INFERD_ModelInstanceModel(instance, &model)) return err;
    if (auto* err = INFERD_ModelState(model, &model_state)) return err;
    const auto& state = *static_cast<const ModelState*>(model_state);
    auto runner = std::make_unique<InstanceState>(InstanceState{state, nullptr});
    if (std::string problem =
            inferd::fil::Forest::Load(state.settings, state.path, &runner->forest);
        !problem.empty()) {
      return MakeError(INFERD_ERROR_INVALID_ARG, problem);
    }
    if (auto* err = INFERD_ModelInstanceSetState(instance, runner.get())) return err;
    runner.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
    delete static_cast<InstanceState*>(state);
    return INFERD_ModelInstanceSetState(instance, nullptr);
  });
}

// Execute answers and releases every request itself (batch_runner.h), so it
// returns an error only when it could touch none of them.
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                        INFERD_Request** requests,
                                                        uint32_t request_count) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
    if (state == nullptr) return MakeError(INFERD_ERROR_INTERNAL, "fil backend: no forest");
    auto* runner = static_cast<InstanceState*>(state);
    inferd::fil::ExecuteBatch(runner->model.settings, *runner->forest, runner->model.error_prefix,
                              instance, requests, request_count);
    return nullptr;
  });
}

}  // extern "C"
