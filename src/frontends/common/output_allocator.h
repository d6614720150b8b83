// The response allocator of both frontends: how the server gets memory for
// each output tensor of a request. An output the request bound for system
// shared memory is written straight into its region (the client's memory, so
// releasing it frees nothing); every other output goes where the frontend
// puts it, through the request's OutputTarget (its allocator_userp): heap
// memory for HTTP, an entry of the response message for gRPC.
//
// A template, so the frontend's part is a direct call: the allocator adds
// nothing per output beyond a lookup among the shared memory outputs.
// Thread-safe: the server may allocate for many requests at once, and the
// target of one request is used by one thread at a time.
#ifndef INFERD_FRONTENDS_COMMON_OUTPUT_ALLOCATOR_H_
#define INFERD_FRONTENDS_COMMON_OUTPUT_ALLOCATOR_H_

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "common/server_error.h"
#include "common/shared_memory_outputs.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

// The frontend's half, given with each request as its allocator_userp.
template <typename T>
concept OutputTarget = requires(T& target, const char* name, size_t byte_size, void* pointer,
                                void** out) {
  // The outputs the request bound for shared memory.
  { std::as_const(target).shared_memory_outputs() } -> std::same_as<const SharedMemoryOutputs&>;
  // `byte_size` bytes for output `name`, which is not in shared memory: sets
  // *buffer (null is fine for 0 bytes) and *buffer_userp, which comes back
  // to ReleaseOutput.
  { target.AllocateOutput(name, byte_size, out, out) } -> std::same_as<Status>;
  // Gives back what AllocateOutput handed out (buffer, buffer_userp).
  { T::ReleaseOutput(pointer, pointer) };
};

// Points *buffer at `output`'s slice: INVALID_ARG naming the output and region
// when `byte_size` does not fit it. *buffer_userp marks the memory as shared.
Status AllocateInSharedMemory(const SharedMemoryOutput& output, size_t byte_size, void** buffer,
                              void** buffer_userp);

// Whether an output's buffer_userp (as the response reports it) says its
// memory is a shared memory region's.
bool IsSharedMemoryBuffer(const void* buffer_userp);

template <OutputTarget Target>
class OutputAllocator {
 public:
  OutputAllocator() = default;
  // Every request using the allocator must have completed.
  ~OutputAllocator() {
    if (allocator_ != nullptr) DiscardServerError(INFERD_ResponseAllocatorDelete(allocator_));
  }
  OutputAllocator(const OutputAllocator&) = delete;
  OutputAllocator& operator=(const OutputAllocator&) = delete;

  // Creates the server allocator; call once, before get().
  Status Init() {
    return StatusFromServerError(INFERD_ResponseAllocatorNew(&allocator_, Allocate, Release));
  }

  // For INFERD_InferenceRequestSetResponseCallback, with a Target* as the
  // request's allocator_userp.
  INFERD_ResponseAllocator* get() const { return allocator_; }

 private:
  static INFERD_Error* Allocate(INFERD_ResponseAllocator*, const char* tensor_name,
                                size_t byte_size, INFERD_MemoryType, int64_t, void* userp,
                                void** buffer, void** buffer_userp,
                                INFERD_MemoryType* actual_memory_type,
                                int64_t* actual_memory_type_id) {
    *buffer = nullptr;
    *buffer_userp = nullptr;
    *actual_memory_type = INFERD_MEMORY_CPU;
    *actual_memory_type_id = 0;
    auto* target = static_cast<Target*>(userp);
    if (target == nullptr) {
      return ServerErrorFromStatus(Status::Internal("output '" + std::string(tensor_name) +
                                                    "': the allocator has no target"));
    }
    const SharedMemoryOutput* shared = target->shared_memory_outputs().Find(tensor_name);
    return ServerErrorFromStatus(
        shared != nullptr ? AllocateInSharedMemory(*shared, byte_size, buffer, buffer_userp)
                          : target->AllocateOutput(tensor_name, byte_size, buffer, buffer_userp));
  }

  static INFERD_Error* Release(INFERD_ResponseAllocator*, void* buffer, void* buffer_userp,
                               size_t, INFERD_MemoryType, int64_t) {
    if (!IsSharedMemoryBuffer(buffer_userp)) Target::ReleaseOutput(buffer, buffer_userp);
    return nullptr;
  }

  INFERD_ResponseAllocator* allocator_ = nullptr;  // owned
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_OUTPUT_ALLOCATOR_H_
