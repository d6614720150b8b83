// The shared memory half of the output allocator, and what a target must provide.
#include "common/output_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace inferd {
namespace {

// A target whose outputs outside shared memory go to the heap, as HTTP's do.
struct HeapTarget {
  SharedMemoryOutputs outputs;
  const SharedMemoryOutputs& shared_memory_outputs() const { return outputs; }
  Status AllocateOutput(const char*, size_t byte_size, void** buffer, void**) {
    *buffer = std::malloc(byte_size);
    return Status::Ok();
  }
  static void ReleaseOutput(void* buffer, void*) { std::free(buffer); }
};
static_assert(OutputTarget<HeapTarget>);

SharedMemoryOutput Bound(const std::string& name, char* data, size_t byte_size) {
  SharedMemoryOutput output{name, "region0", SharedMemorySlice()};
  output.slice.data = data;
  output.slice.byte_size = byte_size;
  return output;
}

TEST(OutputAllocatorTest, SharedMemoryOutputIsWrittenIntoItsSlice) {
  char region[16];
  const SharedMemoryOutput output = Bound("OUT", region + 4, 8);
  void* buffer = nullptr;
  void* buffer_userp = nullptr;
  ASSERT_TRUE(AllocateInSharedMemory(output, 8, &buffer, &buffer_userp).ok());
  EXPECT_EQ(buffer, region + 4);
  EXPECT_TRUE(IsSharedMemoryBuffer(buffer_userp));
  EXPECT_FALSE(IsSharedMemoryBuffer(nullptr));
  EXPECT_FALSE(IsSharedMemoryBuffer(region));
}

TEST(OutputAllocatorTest, OutputLargerThanItsSliceIsInvalid) {
  char region[8];
  void* buffer = nullptr;
  void* buffer_userp = nullptr;
  const Status status =
      AllocateInSharedMemory(Bound("OUT", region, 8), 9, &buffer, &buffer_userp);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_EQ(status.message(),
            "output 'OUT' needs 9 bytes but shared memory region 'region0' was given 8");
  EXPECT_EQ(buffer, nullptr);
}

TEST(OutputAllocatorTest, FindsOutputsByName) {
  char region[8];
  SharedMemoryOutputs outputs;
  EXPECT_TRUE(outputs.empty());
  outputs.Add(Bound("A", region, 4));
  outputs.Add(Bound("B", region + 4, 4));
  ASSERT_NE(outputs.Find("B"), nullptr);
  EXPECT_EQ(outputs.Find("B")->slice.data, region + 4);
  EXPECT_EQ(outputs.Find("C"), nullptr);
}

TEST(OutputAllocatorTest, InitCreatesTheServerAllocator) {
  OutputAllocator<HeapTarget> allocator;
  EXPECT_EQ(allocator.get(), nullptr);
  ASSERT_TRUE(allocator.Init().ok());
  EXPECT_NE(allocator.get(), nullptr);
}

}  // namespace
}  // namespace inferd
