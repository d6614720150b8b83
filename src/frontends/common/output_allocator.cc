// The shared memory half of the output allocator.
#include "common/output_allocator.h"

#include <string>

namespace inferd {
namespace {

// The buffer_userp of every shared memory output: its address is the mark.
const char kSharedMemoryBuffer = 0;

}  // namespace

Status AllocateInSharedMemory(const SharedMemoryOutput& output, size_t byte_size, void** buffer,
                              void** buffer_userp) {
  if (byte_size > output.slice.byte_size) {
    return Status::InvalidArg("output '" + output.name + "' needs " + std::to_string(byte_size) +
                              " bytes but shared memory region '" + output.region +
                              "' was given " + std::to_string(output.slice.byte_size));
  }
  *buffer = output.slice.data;
  *buffer_userp = const_cast<char*>(&kSharedMemoryBuffer);
  return Status::Ok();
}

bool IsSharedMemoryBuffer(const void* buffer_userp) { return buffer_userp == &kSharedMemoryBuffer; }

}  // namespace inferd
