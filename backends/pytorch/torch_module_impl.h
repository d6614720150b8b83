// The inside of TorchModule, for the files that compile LibTorch's headers.
#ifndef INFERD_BACKENDS_PYTORCH_TORCH_MODULE_IMPL_H_
#define INFERD_BACKENDS_PYTORCH_TORCH_MODULE_IMPL_H_

#include <torch/script.h>

#include "torch_module.h"

namespace inferd::pytorch {

struct TorchModule {
  torch::jit::Module module;
  torch::jit::Method forward;  //!< module's forward()
};

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_TORCH_MODULE_IMPL_H_
