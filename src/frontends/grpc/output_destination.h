// Where the outputs of one gRPC infer request go: the OutputTarget half of
// the frontend's OutputAllocator (common/output_allocator.h), given with the
// request as its allocator_userp. Each output not bound for system shared
// memory is allocated as a new raw_output_contents entry of the
// ModelInferResponse being built (resized, then its memory handed out), so
// the backend writes it straight into the message gRPC serializes and no
// output is copied again; the message owns that memory. The response builder
// reads it too, to describe shared memory outputs. Filled while the request
// is built, constant once it is submitted; allocation for one message happens
// on the thread producing its response.
#ifndef INFERD_FRONTENDS_GRPC_OUTPUT_DESTINATION_H_
#define INFERD_FRONTENDS_GRPC_OUTPUT_DESTINATION_H_

#include <cstddef>

#include "common/shared_memory_outputs.h"
#include "grpc_service.pb.h"
#include "inferd/base/status.h"

namespace inferd::grpc_frontend {

struct OutputDestination {
  inference::ModelInferResponse* message = nullptr;  // not owned
  SharedMemoryOutputs shared_memory;  // outputs the request bound for shared memory

  const SharedMemoryOutputs& shared_memory_outputs() const { return shared_memory; }

  // A new raw_output_contents entry of `byte_size` bytes for output `name`;
  // *buffer_userp is the entry, for the response builder to find it again.
  // INTERNAL when there is no memory for it.
  Status AllocateOutput(const char* name, size_t byte_size, void** buffer, void** buffer_userp);

  // Nothing to free: the message owns the memory.
  static void ReleaseOutput(void* buffer, void* buffer_userp) {}
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_OUTPUT_DESTINATION_H_
