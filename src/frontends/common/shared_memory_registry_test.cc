// Registering, listing, slicing and unregistering real POSIX shared memory.
#include "common/shared_memory_registry.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace inferd {
namespace {

// A POSIX shared memory object of `size` bytes, unlinked at the end.
class SharedObject {
 public:
  explicit SharedObject(size_t size)
      : key_("/inferd_test_" + std::to_string(getpid()) + "_" + std::to_string(next_++)) {
    const int fd = shm_open(key_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
    data_ = static_cast<char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    size_ = size;
    close(fd);
  }
  ~SharedObject() {
    munmap(data_, size_);
    shm_unlink(key_.c_str());
  }
  const std::string& key() const { return key_; }
  char* data() const { return data_; }

 private:
  static inline int next_ = 0;
  std::string key_;
  char* data_ = nullptr;
  size_t size_ = 0;
};

using Code = Status::Code;

TEST(SharedMemoryRegistryTest, SliceSeesTheClientsBytesBothWays) {
  SharedObject object(4096 + 64);
  SharedMemoryRegistry registry;
  // An offset that is not page-aligned still maps.
  ASSERT_TRUE(registry.Register("r", object.key(), 100, 64).ok());
  std::memcpy(object.data() + 100 + 8, "hello", 5);
  SharedMemorySlice slice;
  ASSERT_TRUE(registry.Slice("r", 8, 5, "input 'x'", &slice).ok());
  EXPECT_EQ(std::string(slice.data, 5), "hello");
  std::memcpy(slice.data, "HELLO", 5);
  EXPECT_EQ(std::string(object.data() + 108, 5), "HELLO");
}

TEST(SharedMemoryRegistryTest, ListsRegionsByName) {
  SharedObject object(256);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("b", object.key(), 0, 128).ok());
  ASSERT_TRUE(registry.Register("a", object.key(), 128, 128).ok());
  std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
  ASSERT_TRUE(registry.List("", &regions).ok());
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0]->name(), "a");
  EXPECT_EQ(regions[0]->offset(), 128u);
  EXPECT_EQ(regions[1]->key(), object.key());
  ASSERT_TRUE(registry.List("b", &regions).ok());
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0]->byte_size(), 128u);
  EXPECT_EQ(registry.List("zzz", &regions).code(), Code::kNotFound);
}

TEST(SharedMemoryRegistryTest, BadRegistrationsChangeNothing) {
  SharedObject object(64);
  SharedMemoryRegistry registry;
  EXPECT_EQ(registry.Register("r", "/inferd_no_such_key", 0, 8).code(), Code::kInvalidArg);
  EXPECT_EQ(registry.Register("r", object.key(), 32, 64).code(), Code::kInvalidArg);
  EXPECT_EQ(registry.Register("r", object.key(), 0, 0).code(), Code::kInvalidArg);
  std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
  ASSERT_TRUE(registry.List("", &regions).ok());
  EXPECT_TRUE(regions.empty());
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
  EXPECT_EQ(registry.Register("r", object.key(), 0, 8).code(), Code::kAlreadyExists);
}

TEST(SharedMemoryRegistryTest, SlicesMustFitTheRegion) {
  SharedObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
  SharedMemorySlice slice;
  EXPECT_EQ(registry.Slice("r", 60, 8, "input 'x'", &slice).code(), Code::kInvalidArg);
  EXPECT_EQ(registry.Slice("r", ~0ull, 2, "input 'x'", &slice).code(), Code::kInvalidArg);
  EXPECT_EQ(registry.Slice("other", 0, 8, "input 'x'", &slice).code(), Code::kInvalidArg);
  EXPECT_TRUE(registry.Slice("r", 0, 64, "input 'x'", &slice).ok());
}

TEST(SharedMemoryRegistryTest, UnregisterKeepsSlicesInUseMapped) {
  SharedObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
  ASSERT_TRUE(registry.Register("s", object.key(), 0, 64).ok());
  SharedMemorySlice slice;
  ASSERT_TRUE(registry.Slice("r", 0, 4, "input 'x'", &slice).ok());
  EXPECT_TRUE(registry.Unregister("r").ok());
  EXPECT_TRUE(registry.Unregister("r").ok());  // unknown names are no error
  std::memcpy(slice.data, "abcd", 4);           // still mapped
  EXPECT_EQ(std::string(object.data(), 4), "abcd");
  SharedMemorySlice gone;
  EXPECT_EQ(registry.Slice("r", 0, 4, "input 'x'", &gone).code(), Code::kInvalidArg);
  EXPECT_TRUE(registry.Unregister("").ok());  // every region
  std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
  ASSERT_TRUE(registry.List("", &regions).ok());
  EXPECT_TRUE(regions.empty());
}

}  // namespace
}  // namespace inferd
