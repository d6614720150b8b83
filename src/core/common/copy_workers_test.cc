#include "core/common/copy_workers.h"

#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

namespace inferd {
namespace {

// Sources of distinct bytes and zeroed destinations of the given sizes.
struct Buffers {
  explicit Buffers(const std::vector<size_t>& sizes) {
    for (size_t size : sizes) {
      std::vector<unsigned char> src(size);
      std::iota(src.begin(), src.end(), static_cast<unsigned char>(sources.size() * 7));
      sources.push_back(std::move(src));
      destinations.emplace_back(size, 0);
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      copies.push_back({destinations[i].data(), sources[i].data(), sizes[i]});
    }
  }
  bool Copied() const { return sources == destinations; }
  std::vector<std::vector<unsigned char>> sources, destinations;
  std::vector<MemoryCopy> copies;
};

TEST(CopyWorkersTest, WithoutThreadsCopiesOnTheCallingThread) {
  CopyWorkers workers(0);
  Buffers buffers({3 << 20, 17, 0});
  workers.Copy(buffers.copies);
  EXPECT_TRUE(buffers.Copied());
  EXPECT_EQ(workers.parallel_copies(), 0u);
}

TEST(CopyWorkersTest, SmallCopiesAreNotHandedOff) {
  CopyWorkers workers(2);
  Buffers buffers({1000, CopyWorkers::kMinParallelBytes - 1001});
  workers.Copy(buffers.copies);
  EXPECT_TRUE(buffers.Copied());
  EXPECT_EQ(workers.parallel_copies(), 0u);
}

TEST(CopyWorkersTest, LargeCopiesAreSplitAndComplete) {
  CopyWorkers workers(3);
  EXPECT_EQ(workers.thread_count(), 3u);
  // Sizes that are not multiples of the piece size, and an empty one.
  Buffers buffers({(5 << 20) + 13, 0, 300001, 7});
  workers.Copy(buffers.copies);
  EXPECT_TRUE(buffers.Copied());
  EXPECT_EQ(workers.parallel_copies(), 1u);
}

TEST(CopyWorkersTest, ConcurrentCallersShareTheThreads) {
  CopyWorkers workers(2);
  std::vector<Buffers> each;
  for (int i = 0; i < 6; ++i) each.emplace_back(std::vector<size_t>{(1 << 20) + i, 4096});
  std::vector<std::thread> callers;
  for (Buffers& buffers : each) {
    callers.emplace_back([&workers, &buffers] {
      for (int round = 0; round < 20; ++round) workers.Copy(buffers.copies);
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (const Buffers& buffers : each) EXPECT_TRUE(buffers.Copied());
  EXPECT_EQ(workers.parallel_copies(), 6u * 20u);
}

}  // namespace
}  // namespace inferd
