#include "core/infer/response_caching.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace inferd {
namespace {

// A request with inputs A and B (UINT8 [n]) over `a` and `b`, added in the given order.
std::unique_ptr<InferenceRequest> Request(const std::vector<uint8_t>& a,
                                          const std::vector<uint8_t>& b, bool b_first = false) {
  auto request = std::make_unique<InferenceRequest>("m", -1);
  auto add = [&](const char* name, const std::vector<uint8_t>& data) {
    const int64_t shape[] = {static_cast<int64_t>(data.size())};
    EXPECT_TRUE(request->AddInput(name, INFERD_TYPE_UINT8, shape, 1).ok());
    EXPECT_TRUE(request->AppendInputData(name, InputBuffer{data.data(), data.size()}).ok());
  };
  if (b_first) {
    add("B", b);
    add("A", a);
  } else {
    add("A", a);
    add("B", b);
  }
  return request;
}

TEST(ResponseCachingTest, SameInputsGiveTheSameKeyWhateverTheirOrder) {
  const std::vector<uint8_t> a = {1, 2, 3}, b = {4, 5};
  std::optional<CacheKey> first = MakeCacheKey(*Request(a, b), 7);
  std::optional<CacheKey> second = MakeCacheKey(*Request(a, b, /*b_first=*/true), 7);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->bytes, second->bytes);
  EXPECT_EQ(first->owner, 7u);
}

TEST(ResponseCachingTest, OneInputByteApartGivesAnotherKey) {
  const std::vector<uint8_t> a = {1, 2, 3}, b = {4, 5}, b2 = {4, 6};
  EXPECT_NE(MakeCacheKey(*Request(a, b), 1)->bytes, MakeCacheKey(*Request(a, b2), 1)->bytes);
}

TEST(ResponseCachingTest, BytesMovedBetweenInputsGiveAnotherKey) {
  // The same concatenated bytes, split differently between the inputs.
  EXPECT_NE(MakeCacheKey(*Request({1, 2, 3}, {4, 5}), 1)->bytes,
            MakeCacheKey(*Request({1, 2}, {3, 4, 5}), 1)->bytes);
}

TEST(ResponseCachingTest, RequestedOutputsAndClassificationArePartOfTheKey) {
  const std::vector<uint8_t> a = {1}, b = {2};
  auto plain = Request(a, b);
  auto one_output = Request(a, b);
  one_output->requested_outputs = {"OUT_A"};
  auto classified = Request(a, b);
  classified->requested_outputs = {"OUT_A"};
  classified->classifications = {{"OUT_A", 3}};
  const std::string k1 = MakeCacheKey(*plain, 1)->bytes;
  const std::string k2 = MakeCacheKey(*one_output, 1)->bytes;
  const std::string k3 = MakeCacheKey(*classified, 1)->bytes;
  EXPECT_NE(k1, k2);
  EXPECT_NE(k2, k3);
  EXPECT_NE(k1, k3);
}

TEST(ResponseCachingTest, InputsInGpuMemoryAreNotCached) {
  auto request = std::make_unique<InferenceRequest>("m", -1);
  const int64_t shape[] = {4};
  const float data[4] = {};
  ASSERT_TRUE(request->AddInput("A", INFERD_TYPE_FP32, shape, 1).ok());
  ASSERT_TRUE(request
                  ->AppendInputData("A", InputBuffer{data, sizeof(data), INFERD_MEMORY_GPU, 0})
                  .ok());
  EXPECT_FALSE(MakeCacheKey(*request, 1).has_value());
}

}  // namespace
}  // namespace inferd
