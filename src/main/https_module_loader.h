// Loads libinferd_https_frontend.so (see frontends/http/https_module.h) and
// creates the HTTPS frontend from it. Used by main only.
#ifndef INFERD_HTTPS_MODULE_LOADER_H_
#define INFERD_HTTPS_MODULE_LOADER_H_

#include <memory>
#include <string>

#include "common/frontend.h"
#include "http/http_server.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

// Loads the module from `folder` (it stays loaded for the process's life) and
// creates its HTTP frontend for `server` and `options` (TLS on), not started
// yet. UNAVAILABLE when the module is missing, cannot be loaded or lacks its
// entry point.
StatusOr<std::unique_ptr<Frontend>> LoadHttpsFrontend(const std::string& folder,
                                                      INFERD_Server* server,
                                                      const http::HttpOptions& options);

}  // namespace inferd

#endif  // INFERD_HTTPS_MODULE_LOADER_H_
