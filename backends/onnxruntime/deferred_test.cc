// Tests of Deferred: the value is made once, on another thread, and every
// caller gets that one value.
#include "deferred.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace inferd::onnxruntime {
namespace {

TEST(DeferredTest, MakesTheValueOnceOnAnotherThread) {
  std::atomic<int> calls{0};
  std::thread::id maker;
  Deferred<std::string> value([&] {
    ++calls;
    maker = std::this_thread::get_id();
    return std::string("made");
  });
  EXPECT_EQ(value.Get(), "made");
  EXPECT_EQ(value.Get(), "made");
  EXPECT_EQ(calls.load(), 1);
  EXPECT_NE(maker, std::this_thread::get_id());
}

TEST(DeferredTest, CallersOnManyThreadsShareTheOneValue) {
  Deferred<std::unique_ptr<int>> value([] { return std::make_unique<int>(7); });
  std::vector<std::thread> callers;
  std::atomic<int> same{0};
  const int* seen[4] = {};
  for (int i = 0; i < 4; ++i) {
    callers.emplace_back([&, i] { seen[i] = value.Get().get(); });
  }
  for (auto& caller : callers) caller.join();
  for (const int* p : seen) same += p == value.Get().get() ? 1 : 0;
  EXPECT_EQ(same.load(), 4);
  EXPECT_EQ(*value.Get(), 7);
}

TEST(DeferredTest, DestroyingWithoutAskingWaitsForTheMaker) {
  std::atomic<bool> finished{false};
  {
    Deferred<int> value([&] {
      std::this_thread::yield();
      finished = true;
      return 1;
    });
  }
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace inferd::onnxruntime
