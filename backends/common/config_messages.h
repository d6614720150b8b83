// The configurations the server hands a backend, as JSON text: the model's
// (Triton's ModelConfig field names) and the backend's --backend-config
// settings (an object of strings). config_json.h reads what comes out.
#ifndef INFERD_BACKENDS_COMMON_CONFIG_MESSAGES_H_
#define INFERD_BACKENDS_COMMON_CONFIG_MESSAGES_H_

#include <string>

#include "inferd/backend.h"
#include "rapidjson/document.h"

namespace inferd::backend_common {

// The model's configuration as JSON text, into `*json`. Null on success.
INFERD_Error* ReadModelConfigJson(INFERD_Model* model, std::string* json);

// The --backend-config settings of `backend`, parsed into `*doc` (an object,
// or not one when the server sent nothing readable). Null on success.
INFERD_Error* ReadBackendConfigJson(INFERD_Backend* backend, rapidjson::Document* doc);

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_CONFIG_MESSAGES_H_
