// Output tensors allocated inside ModelInferResponse.raw_output_contents.
#include "grpc/output_allocator.h"

#include <exception>
#include <string>

#include "common/server_error.h"
#include "grpc/output_destination.h"

namespace inferd::grpc_frontend {

OutputAllocator::~OutputAllocator() {
  if (allocator_ != nullptr) DiscardServerError(INFERD_ResponseAllocatorDelete(allocator_));
}

Status OutputAllocator::Init() {
  return StatusFromServerError(INFERD_ResponseAllocatorNew(&allocator_, Allocate, Release));
}

INFERD_Error* OutputAllocator::Allocate(INFERD_ResponseAllocator*, const char* tensor_name,
                                        size_t byte_size, INFERD_MemoryType, int64_t, void* userp,
                                        void** buffer, void** buffer_userp,
                                        INFERD_MemoryType* actual_memory_type,
                                        int64_t* actual_memory_type_id) {
  *actual_memory_type = INFERD_MEMORY_CPU;
  *actual_memory_type_id = 0;
  auto* destination = static_cast<OutputDestination*>(userp);
  if (const SharedMemoryOutput* target = destination->Find(tensor_name)) {
    if (byte_size > target->slice.byte_size) {
      const std::string error = "output '" + target->name + "' needs " +
                                std::to_string(byte_size) + " bytes but shared memory region '" +
                                target->region + "' was given " +
                                std::to_string(target->slice.byte_size);
      return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, error.c_str());
    }
    *buffer = target->slice.data;
    *buffer_userp = const_cast<SharedMemoryOutput*>(target);  // the builder recognizes it
    return nullptr;
  }
  inference::ModelInferResponse* message = destination->message;
  std::string* raw = message->add_raw_output_contents();
  try {
    raw->resize(byte_size);
  } catch (const std::exception&) {  // nothing may be thrown across the server API
    message->mutable_raw_output_contents()->RemoveLast();
    const std::string error = "no memory for the " + std::to_string(byte_size) +
                              " bytes of output '" + tensor_name + "'";
    return INFERD_ErrorNew(INFERD_ERROR_INTERNAL, error.c_str());
  }
  *buffer = raw->data();
  *buffer_userp = raw;  // lets the response builder find the entry again
  return nullptr;
}

INFERD_Error* OutputAllocator::Release(INFERD_ResponseAllocator*, void*, void*, size_t,
                                       INFERD_MemoryType, int64_t) {
  return nullptr;  // the message owns the memory
}

}  // namespace inferd::grpc_frontend
