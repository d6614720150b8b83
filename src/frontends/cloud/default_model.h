// Which model a cloud endpoint's predict call serves when the request names
// none, chosen from the server's repository index as Triton does: the one
// model named, which must be in the index, or else the repository's only
// model. Thread-safe (the server API is).
#ifndef INFERD_FRONTENDS_CLOUD_DEFAULT_MODEL_H_
#define INFERD_FRONTENDS_CLOUD_DEFAULT_MODEL_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::cloud {

// `configured` when it is non-empty and in the index; else the name of the
// only model in the index. `ready_only` counts only READY versions (Vertex
// AI), else every model the repositories hold (SageMaker). INVALID_ARG, its
// message naming `setting` (the flag or variable that picks the model), when
// the configured model is missing or the index has no model or several.
StatusOr<std::string> ChooseDefaultModel(INFERD_Server* server, const std::string& configured,
                                         bool ready_only, std::string_view setting);

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_DEFAULT_MODEL_H_
