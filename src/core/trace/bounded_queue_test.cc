#include "core/trace/bounded_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "core/trace/trace_pool.h"

namespace inferd {
namespace {

TEST(BoundedQueueTest, FirstInFirstOutUpToItsCapacity) {
  BoundedQueue<int> queue(3);  // rounded up to 4
  int values[5] = {0, 1, 2, 3, 4};
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(queue.Push(&values[i])) << i;
  EXPECT_FALSE(queue.Push(&values[4]));  // full: refused, not overwritten
  for (int i = 0; i < 4; ++i) EXPECT_EQ(queue.Pop(), &values[i]);
  EXPECT_EQ(queue.Pop(), nullptr);
  // The slots are reused lap after lap.
  for (int lap = 0; lap < 10; ++lap) {
    EXPECT_TRUE(queue.Push(&values[lap % 5]));
    EXPECT_EQ(queue.Pop(), &values[lap % 5]);
  }
}

// Producers and consumers at once: every value comes out exactly once.
TEST(BoundedQueueTest, ManyProducersAndConsumersLoseAndRepeatNothing) {
  constexpr int kThreads = 4;
  constexpr int kEach = 20000;
  BoundedQueue<int> queue(64);
  std::vector<int> values(kThreads * kEach);
  std::vector<std::atomic<int>> seen(values.size());
  std::atomic<int> popped{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t * kEach; i < (t + 1) * kEach; ++i) {
        while (!queue.Push(&values[i])) std::this_thread::yield();
      }
    });
    threads.emplace_back([&] {
      while (popped.load() < kThreads * kEach) {
        int* value = queue.Pop();
        if (value == nullptr) {
          std::this_thread::yield();
          continue;
        }
        seen[value - values.data()].fetch_add(1);
        popped.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  EXPECT_EQ(queue.Pop(), nullptr);
}

// A type of its own, so that its pool is this test's alone.
struct Pooled {
  explicit Pooled(int v) : value(v) {}
  int value;
};

// A block freed on another thread comes back to the thread that allocates
// next (malloc would have kept it in the freeing thread's cache).
TEST(TracePoolAllocatorTest, ABlockFreedOnAnotherThreadIsReusedHere) {
  constexpr size_t kKept = TracePoolAllocator<Pooled>::kKept;
  // More than the pool keeps: it is empty now, whatever earlier tests left.
  std::vector<std::shared_ptr<Pooled>> held;
  for (size_t i = 0; i <= kKept; ++i) {
    held.push_back(std::allocate_shared<Pooled>(TracePoolAllocator<Pooled>(), 1));
  }
  const void* oldest = held.front().get();
  std::thread([&held] { held.clear(); }).join();  // the first kKept freed go to the pool
  auto again = std::allocate_shared<Pooled>(TracePoolAllocator<Pooled>(), 2);
  EXPECT_EQ(again.get(), oldest);  // the pool's oldest block
  EXPECT_EQ(again->value, 2);      // built anew in it
}

}  // namespace
}  // namespace inferd
