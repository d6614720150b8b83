// What a compiled backend does in common when it loads a model version: the
// prefix of its request errors, the version's folder and its settings read
// from the configuration. Call only inside INFERD_ModelInitialize.
#ifndef INFERD_BACKENDS_COMMON_MODEL_LOADING_H_
#define INFERD_BACKENDS_COMMON_MODEL_LOADING_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "common/config_messages.h"
#include "common/entry_points.h"
#include "inferd/backend.h"

namespace inferd::backend_common {

// "model 'm' version 1: ", the start of every request error.
INFERD_Error* RequestErrorPrefix(INFERD_Model* model, std::string* prefix);

// <model repository path>/<version>.
INFERD_Error* VersionFolder(INFERD_Model* model, std::filesystem::path* folder);

// Where a backend finds its model file: <version folder>/<configured name>,
// or `default_name` when the configuration names none.
struct ModelFileRule {
  const char* backend;        //!< "onnxruntime", for the refusal
  const char* default_name;   //!< "model.onnx"
  bool folder_holds_default;  //!< a folder by the name holds `default_name`
};

// The model file as `rule` finds it (`configured`: default_model_filename);
// NOT_FOUND when there is none, saying where the backend looks.
INFERD_Error* FindModelFile(INFERD_Model* model, const std::string& configured,
                            const ModelFileRule& rule, std::string* path);

// The configuration's JSON into `*json`, parsed by `parse` into `settings`;
// what `parse` finds wrong comes back as INVALID_ARG.
template <typename Settings>
INFERD_Error* ReadSettings(INFERD_Model* model,
                           std::string (*parse)(std::string_view, Settings*), Settings* settings,
                           std::string* json) {
  if (auto* err = ReadModelConfigJson(model, json)) return err;
  if (std::string problem = parse(*json, settings); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, problem);
  }
  return nullptr;
}

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_MODEL_LOADING_H_
