// dlopen + dlsym of the gRPC frontend module.
#include "grpc_module_loader.h"

#include <dlfcn.h>

#include "grpc/grpc_module.h"

namespace inferd {

StatusOr<std::unique_ptr<ConnectionFrontend>> LoadGrpcFrontend(
    const std::string& folder, INFERD_Server* server, const grpc_frontend::GrpcOptions& options) {
  const std::string path = folder + "/" + grpc_frontend::kGrpcModuleFile;
  // Never unloaded: gRPC keeps threads and static state for the process's
  // life, and the frontend's code must outlive the frontend.
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (module == nullptr) {
    const char* reason = dlerror();
    return Status::Unavailable("cannot load the gRPC frontend (" +
                               std::string(reason ? reason : path) +
                               "); --allow-grpc=false serves without it");
  }
  auto create = reinterpret_cast<grpc_frontend::NewGrpcFrontendFn>(
      dlsym(module, grpc_frontend::kNewGrpcFrontendSymbol));
  if (create == nullptr) {
    return Status::Unavailable(path + " lacks the gRPC frontend's entry point; rebuild inferd");
  }
  std::unique_ptr<ConnectionFrontend> frontend(create(server, options));
  if (frontend == nullptr) return Status::Internal(path + " created no gRPC frontend");
  return frontend;
}

}  // namespace inferd
