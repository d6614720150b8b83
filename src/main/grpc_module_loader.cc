// dlopen + dlsym of the gRPC frontend module.
#include "grpc_module_loader.h"

#include <dlfcn.h>

namespace inferd {

GrpcModule::~GrpcModule() { Stop(); }

std::string GrpcModule::Start(const std::string& folder, INFERD_Server* server,
                              const grpc_frontend::GrpcOptions& options) {
  const std::string path = folder + "/" + grpc_frontend::kGrpcModuleFile;
  // Never unloaded: gRPC keeps threads and static state for the process's life.
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (module == nullptr) {
    const char* reason = dlerror();
    return "cannot load the gRPC frontend (" + std::string(reason ? reason : path) +
           "); --allow-grpc=false serves without it";
  }
  auto start = reinterpret_cast<grpc_frontend::StartGrpcFn>(
      dlsym(module, grpc_frontend::kStartGrpcSymbol));
  stop_ = reinterpret_cast<grpc_frontend::StopGrpcFn>(dlsym(module, grpc_frontend::kStopGrpcSymbol));
  if (start == nullptr || stop_ == nullptr) {
    return path + " lacks the gRPC frontend's entry points; rebuild inferd";
  }
  std::string error;
  frontend_ = start(server, options, &port_, &error);
  return frontend_ != nullptr ? "" : error;
}

void GrpcModule::Stop() {
  if (frontend_ == nullptr) return;
  stop_(frontend_);
  frontend_ = nullptr;
}

}  // namespace inferd
