// A loaded TorchScript module, kept opaque so that only the files that run it
// (torch_module.cc, instance_runner.cc) compile LibTorch's headers. Loading
// reads forward()'s schema for the naming rules (io_binding.h).
#ifndef INFERD_BACKENDS_PYTORCH_TORCH_MODULE_H_
#define INFERD_BACKENDS_PYTORCH_TORCH_MODULE_H_

#include <memory>
#include <string>

#include "inferd/backend.h"
#include "io_binding.h"

namespace inferd::pytorch {

struct TorchModule;  // torch_module_impl.h
struct TorchModuleDeleter {
  void operator()(TorchModule* module) const;
};
// Owns one module. Not thread-safe: one instance runs it at a time.
using TorchModulePtr = std::unique_ptr<TorchModule, TorchModuleDeleter>;

// Loads the TorchScript file at `path` on the CPU, in eval mode, and describes
// its forward() in *signature (when not null). Error (INVALID_ARG) with
// LibTorch's reason, trimmed to its meaningful line, when the file is not a
// TorchScript archive or has no forward().
INFERD_Error* LoadTorchModule(const std::string& path, TorchModulePtr* module,
                              ForwardSignature* signature);

// Sizes LibTorch's process-wide inter-op pool, once per process: the first
// call with count > 0 sets it (when LibTorch still allows it), later calls do
// nothing. Returns the size in force ("0" when left at LibTorch's default).
int SetInterOpThreadsOnce(int count);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_TORCH_MODULE_H_
