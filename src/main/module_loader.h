// dlopen + dlsym of a frontend module beside the binary (the gRPC and HTTPS
// frontends: grpc/grpc_module.h, http/https_module.h). Used by main only.
#ifndef INFERD_MODULE_LOADER_H_
#define INFERD_MODULE_LOADER_H_

#include <string>

#include "inferd/base/status.h"

namespace inferd {

// Loads the module at `path` (it stays loaded for the process's life) and
// returns its entry point `symbol`. UNAVAILABLE "cannot load the <what>
// (<why>)<hint>" when it is missing or cannot be loaded, and UNAVAILABLE
// when it lacks `symbol`. Any thread.
StatusOr<void*> LoadModuleEntryPoint(const std::string& path, const char* symbol,
                                     const std::string& what, const std::string& hint);

}  // namespace inferd

#endif  // INFERD_MODULE_LOADER_H_
