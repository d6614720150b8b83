// Where the outputs of one gRPC infer request go: the ModelInferResponse
// their raw_output_contents are allocated in, or, for outputs the request put
// in system shared memory, the client's region. The OutputAllocator's userp;
// the response builder reads it to describe shared memory outputs. Filled
// while the request is built, constant once it is submitted.
#ifndef INFERD_FRONTENDS_GRPC_OUTPUT_DESTINATION_H_
#define INFERD_FRONTENDS_GRPC_OUTPUT_DESTINATION_H_

#include <string>
#include <vector>

#include "common/shared_memory_registry.h"
#include "grpc_service.pb.h"

namespace inferd::grpc_frontend {

// An output the request asked to have written into shared memory.
struct SharedMemoryOutput {
  std::string name;    // the output tensor
  std::string region;  // the region's registered name
  SharedMemorySlice slice;
};

struct OutputDestination {
  inference::ModelInferResponse* message = nullptr;  // not owned
  std::vector<SharedMemoryOutput> shared_memory;

  // The shared memory target of output `name`, or null.
  const SharedMemoryOutput* Find(const char* name) const {
    for (const SharedMemoryOutput& output : shared_memory) {
      if (output.name == name) return &output;
    }
    return nullptr;
  }
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_OUTPUT_DESTINATION_H_
