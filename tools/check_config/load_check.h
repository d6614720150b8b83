// inferd check --load: what only a backend can see (a model file that does not
// match its configuration: names, types and shapes read from the ONNX file,
// the batch dimension written into dims). Each model the static check passed
// is loaded in a server of this process (explicit model control, no
// frontends) and unloaded again; its load error is the one inferd gives.
#ifndef INFERD_TOOLS_CHECK_CONFIG_LOAD_CHECK_H_
#define INFERD_TOOLS_CHECK_CONFIG_LOAD_CHECK_H_

#include <map>
#include <string>
#include <vector>

#include "inferd/server.h"

namespace inferd_check {

// Loads each of `models` with a server made from `options` (taken over and
// freed); returns each failing model's load error by model name, or
// {"", why} when the server cannot start.
std::map<std::string, std::string> LoadErrors(INFERD_ServerOptions* options,
                                              const std::vector<std::string>& models);

}  // namespace inferd_check

#endif  // INFERD_TOOLS_CHECK_CONFIG_LOAD_CHECK_H_
