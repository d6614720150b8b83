// The outputs of one infer request that the client asked to have written into
// system shared memory, each with the slice of its region. Both frontends
// fill it while they build a request; the output allocator (output_allocator.h)
// reads it when the server asks for output memory. Constant once the request
// is submitted; not thread-safe before.
#ifndef INFERD_FRONTENDS_COMMON_SHARED_MEMORY_OUTPUTS_H_
#define INFERD_FRONTENDS_COMMON_SHARED_MEMORY_OUTPUTS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/shared_memory_registry.h"

namespace inferd {

// One output bound for shared memory.
struct SharedMemoryOutput {
  std::string name;         // the output tensor
  std::string region;       // the region's registered name
  SharedMemorySlice slice;  // where in it; holds the region mapped
};

class SharedMemoryOutputs {
 public:
  void Add(SharedMemoryOutput output) { outputs_.push_back(std::move(output)); }

  // The output named `name`, or null when it is not bound for shared memory.
  const SharedMemoryOutput* Find(std::string_view name) const {
    for (const SharedMemoryOutput& output : outputs_) {
      if (output.name == name) return &output;
    }
    return nullptr;
  }

  bool empty() const { return outputs_.empty(); }

 private:
  std::vector<SharedMemoryOutput> outputs_;
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_SHARED_MEMORY_OUTPUTS_H_
