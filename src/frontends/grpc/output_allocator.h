// The response allocator of the gRPC frontend, given an OutputDestination as
// the request's allocator_userp: each output tensor is allocated as a new
// raw_output_contents entry of its ModelInferResponse (resized, then its
// memory handed out), so the backend writes the output straight into the
// message gRPC serializes and no output is copied again; an output the
// request put in shared memory is written into its region instead. The
// message or the client owns that memory: release frees nothing.
// One message serves one response at a time; allocation for it happens on the
// thread producing that response. Thread-safe otherwise (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_OUTPUT_ALLOCATOR_H_
#define INFERD_FRONTENDS_GRPC_OUTPUT_ALLOCATOR_H_

#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

class OutputAllocator {
 public:
  OutputAllocator() = default;
  ~OutputAllocator();  // every request using it must have completed
  OutputAllocator(const OutputAllocator&) = delete;
  OutputAllocator& operator=(const OutputAllocator&) = delete;

  // Creates the server allocator; call once before get().
  Status Init();

  // The allocator to give INFERD_InferenceRequestSetResponseCallback, with an
  // OutputDestination* as allocator_userp.
  INFERD_ResponseAllocator* get() const { return allocator_; }

 private:
  static INFERD_Error* Allocate(INFERD_ResponseAllocator* allocator, const char* tensor_name,
                                size_t byte_size, INFERD_MemoryType memory_type,
                                int64_t memory_type_id, void* userp, void** buffer,
                                void** buffer_userp, INFERD_MemoryType* actual_memory_type,
                                int64_t* actual_memory_type_id);
  static INFERD_Error* Release(INFERD_ResponseAllocator* allocator, void* buffer,
                               void* buffer_userp, size_t byte_size,
                               INFERD_MemoryType memory_type, int64_t memory_type_id);

  INFERD_ResponseAllocator* allocator_ = nullptr;  // owned
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_OUTPUT_ALLOCATOR_H_
