// The model version of a gRPC request: the protocol carries it as a string,
// empty for "the latest ready version". Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_VERSION_STRING_H_
#define INFERD_FRONTENDS_GRPC_VERSION_STRING_H_

#include <cstdint>
#include <string>

#include "inferd/base/status.h"

namespace inferd::grpc_frontend {

// "" -> -1 (latest), "3" -> 3. Anything but a non-negative decimal integer is
// INVALID_ARG naming `model_name` and the version.
Status ParseModelVersion(const std::string& model_name, const std::string& version,
                         int64_t* out);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_VERSION_STRING_H_
