// The configurations the server hands a backend, as JSON (see config_messages.h).
#include "common/config_messages.h"

namespace inferd::backend_common {
namespace {

// The JSON of a message the server handed over, which is deleted here.
INFERD_Error* MessageJson(INFERD_Message* message, std::string* json) {
  const char* base = nullptr;
  size_t size = 0;
  INFERD_Error* err = INFERD_MessageSerializeToJson(message, &base, &size);
  if (err == nullptr) json->assign(base, size);
  INFERD_ErrorDelete(INFERD_MessageDelete(message));
  return err;
}

}  // namespace

INFERD_Error* ReadModelConfigJson(INFERD_Model* model, std::string* json) {
  INFERD_Message* message = nullptr;
  if (auto* err = INFERD_ModelConfig(model, &message)) return err;
  return MessageJson(message, json);
}

INFERD_Error* ReadBackendConfigJson(INFERD_Backend* backend, rapidjson::Document* doc) {
  INFERD_Message* message = nullptr;
  if (auto* err = INFERD_BackendConfig(backend, &message)) return err;
  std::string json;
  if (auto* err = MessageJson(message, &json)) return err;
  doc->Parse(json.data(), json.size());
  return nullptr;
}

}  // namespace inferd::backend_common
