// GET /v1/models: the models the OpenAI API can serve, those READY that
// follow the tensor convention (a BYTES input text_input). Thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_MODEL_LIST_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_MODEL_LIST_H_

#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http::openai {

// The names, sorted, each once (whatever its versions).
Status ListServableModels(INFERD_Server* server, std::vector<std::string>* models);

// The JSON answer of GET /v1/models (`model` empty) or GET /v1/models/{model}
// (NOT_FOUND when that one is not servable).
StatusOr<std::string> ModelsAnswer(INFERD_Server* server, const std::string& model);

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_MODEL_LIST_H_
