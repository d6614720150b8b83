// Runs the model's TritonPythonModel.auto_complete_config (when it has one) in
// a short-lived stub, the way Triton does at model load, and returns the
// configuration it produced. Thread-compatible.
#ifndef INFERD_BACKENDS_PYTHON_AUTO_COMPLETE_H_
#define INFERD_BACKENDS_PYTHON_AUTO_COMPLETE_H_

#include <string>

#include "inferd/base/status.h"
#include "model_settings.h"

namespace inferd::python {

// Sets *config_json to the completed configuration (the same JSON form as
// settings.config_json); the Python error when auto_complete_config raised.
Status AutoCompleteConfig(const ModelSettings& settings, std::string* config_json);

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_AUTO_COMPLETE_H_
