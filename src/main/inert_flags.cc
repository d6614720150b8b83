#include "inert_flags.h"

#include <algorithm>
#include <string_view>

namespace inferd {
namespace {

// A flag accepted without effect, and why it has none.
struct InertFlag {
  const char* name;
  const char* reason;
};

constexpr InertFlag kInertFlags[] = {
    {"enable-peer-access", "GPU peer access needs GPUs; this is a CPU build"},
    {"allow-gpu-metrics", "there are no GPU metrics on a CPU build"},
    {"pinned-memory-pool-byte-size",
     "pinned host memory only speeds up GPU copies; this is a CPU build"},
    {"cuda-memory-pool-byte-size", "there is no CUDA memory pool on a CPU build"},
    {"cuda-virtual-address-size", "there is no CUDA memory on a CPU build"},
    {"min-supported-compute-capability", "compute capability is a CUDA GPU property"},
    {"model-load-gpu-limit", "there is no GPU memory to limit on a CPU build"},
    {"repoagent-directory",
     "inferd loads no repository agents (a model whose config names one fails to load)"},
    {"grpc-infer-allocation-pool-size",
     "the gRPC frontend keeps no pool of request objects to size"},
};

const InertFlag* FindInert(std::string_view flag) {
  if (flag.starts_with("--")) flag.remove_prefix(2);
  for (const InertFlag& inert : kInertFlags) {
    if (flag == inert.name) return &inert;
  }
  return nullptr;
}

}  // namespace

void AddInertFlags(CLI::App& app, std::vector<std::string>* given) {
  for (const InertFlag& inert : kInertFlags) {
    const std::string flag = std::string("--") + inert.name;
    const auto note = [given, flag](const std::vector<std::string>&) {
      if (std::find(given->begin(), given->end(), flag) == given->end()) given->push_back(flag);
    };
    app.add_option_function<std::vector<std::string>>(
           flag, note, std::string("No effect: ") + inert.reason)
        ->group("Triton flags without effect on this build");
  }
}

std::string InertFlagNotice(const std::string& flag) {
  const InertFlag* inert = FindInert(flag);
  return flag + " has no effect: " + (inert != nullptr ? inert->reason : "unknown flag");
}

}  // namespace inferd
