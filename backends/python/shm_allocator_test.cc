#include "shm_allocator.h"

#include <gtest/gtest.h>

namespace inferd::python {
namespace {

TEST(ShmAllocatorTest, AlignsAndPlacesBlocksFirstFit) {
  ShmAllocator alloc(64, 1024);
  auto a = alloc.Allocate(1);
  auto b = alloc.Allocate(65);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 64u);
  EXPECT_EQ(*b, 128u);  // a took one 64-byte unit
  EXPECT_EQ(alloc.bytes_in_use(), 64u + 128u);
}

TEST(ShmAllocatorTest, ZeroBytesStillGetsADistinctBlock) {
  ShmAllocator alloc(0, 256);
  auto a = alloc.Allocate(0);
  auto b = alloc.Allocate(0);
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
}

TEST(ShmAllocatorTest, RefusesWhatDoesNotFit) {
  ShmAllocator alloc(0, 256);
  EXPECT_FALSE(alloc.Allocate(257));
  auto a = alloc.Allocate(200);
  ASSERT_TRUE(a);
  EXPECT_FALSE(alloc.Allocate(64));
  EXPECT_EQ(alloc.largest_free(), 0u);
}

TEST(ShmAllocatorTest, FreeCoalescesWithBothNeighbours) {
  ShmAllocator alloc(0, 64 * 3);
  auto a = alloc.Allocate(64);
  auto b = alloc.Allocate(64);
  auto c = alloc.Allocate(64);
  ASSERT_TRUE(a && b && c);
  EXPECT_TRUE(alloc.Free(*a));
  EXPECT_TRUE(alloc.Free(*c));
  EXPECT_EQ(alloc.largest_free(), 64u);  // two holes, not adjacent
  EXPECT_TRUE(alloc.Free(*b));
  EXPECT_EQ(alloc.largest_free(), 64u * 3);
  EXPECT_EQ(alloc.blocks_in_use(), 0u);
  EXPECT_EQ(*alloc.Allocate(64 * 3), 0u);
}

TEST(ShmAllocatorTest, RejectsUnknownAndDoubleFree) {
  ShmAllocator alloc(0, 1024);
  auto a = alloc.Allocate(100);
  ASSERT_TRUE(a);
  EXPECT_FALSE(alloc.Free(*a + 64));
  EXPECT_TRUE(alloc.Free(*a));
  EXPECT_FALSE(alloc.Free(*a));
  EXPECT_EQ(alloc.bytes_in_use(), 0u);
}

TEST(ShmAllocatorTest, ReusesAFreedHoleBeforeTheTail) {
  ShmAllocator alloc(0, 1024);
  auto a = alloc.Allocate(128);
  auto b = alloc.Allocate(128);
  ASSERT_TRUE(a && b);
  alloc.Free(*a);
  EXPECT_EQ(*alloc.Allocate(100), *a);
}

TEST(ShmAllocatorTest, ResetForgetsEveryBlock) {
  ShmAllocator alloc(0, 1024);
  ASSERT_TRUE(alloc.Allocate(1000));
  alloc.Reset();
  EXPECT_EQ(alloc.bytes_in_use(), 0u);
  EXPECT_TRUE(alloc.Allocate(1024));
}

}  // namespace
}  // namespace inferd::python
