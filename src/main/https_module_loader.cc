// The HTTPS frontend module's entry point, called.
#include "https_module_loader.h"

#include <spdlog/spdlog.h>

#include "http/https_module.h"
#include "module_loader.h"

namespace inferd {

StatusOr<std::unique_ptr<Frontend>> LoadHttpsFrontend(const std::string& folder,
                                                      INFERD_Server* server,
                                                      const http::HttpOptions& options) {
  const std::string path = folder + "/" + http::kHttpsModuleFile;
  ASSIGN_OR_RETURN(void* entry, LoadModuleEntryPoint(path, http::kNewHttpsFrontendSymbol,
                                                     "HTTPS frontend", ""));
  auto create = reinterpret_cast<http::NewHttpsFrontendFn>(entry);
  std::unique_ptr<Frontend> frontend(create(server, options, spdlog::default_logger()));
  if (frontend == nullptr) return Status::Internal(path + " created no HTTPS frontend");
  return frontend;
}

}  // namespace inferd
