// The gRPC frontend module's entry point, called.
#include "grpc_module_loader.h"

#include "grpc/grpc_module.h"
#include "module_loader.h"

namespace inferd {

StatusOr<std::unique_ptr<ConnectionFrontend>> LoadGrpcFrontend(
    const std::string& folder, INFERD_Server* server, const grpc_frontend::GrpcOptions& options) {
  const std::string path = folder + "/" + grpc_frontend::kGrpcModuleFile;
  ASSIGN_OR_RETURN(void* entry,
                   LoadModuleEntryPoint(path, grpc_frontend::kNewGrpcFrontendSymbol,
                                        "gRPC frontend", "; --allow-grpc=false serves without it"));
  auto create = reinterpret_cast<grpc_frontend::NewGrpcFrontendFn>(entry);
  std::unique_ptr<ConnectionFrontend> frontend(create(server, options));
  if (frontend == nullptr) return Status::Internal(path + " created no gRPC frontend");
  return frontend;
}

}  // namespace inferd
