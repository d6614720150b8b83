// Top-k classification strings: order, formats per type, labels, batches.
#include "core/infer/classification.h"

#include <gtest/gtest.h>

#include <cstring>

namespace inferd {
namespace {

// The elements of a BYTES tensor.
std::vector<std::string> Elements(const std::string& data) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at + 4 <= data.size()) {
    uint32_t length;
    std::memcpy(&length, data.data() + at, 4);
    out.emplace_back(data.substr(at + 4, length));
    at += 4 + length;
  }
  return out;
}

TEST(ClassificationTest, LargestFirstWithLabels) {
  const float values[] = {0.1f, 0.7f, 0.2f, 0.7f};
  auto result = Classify(values, sizeof values, INFERD_TYPE_FP32, {4}, false, 3,
                         {"cat", "dog", "bird"}, "output 'P'");
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result.value().shape, (std::vector<int64_t>{3}));
  // Ties keep index order; index 3 has no label line.
  EXPECT_EQ(Elements(result.value().data),
            (std::vector<std::string>{"0.700000:1:dog", "0.700000:3", "0.200000:2:bird"}));
}

TEST(ClassificationTest, EachBatchRowOnItsOwn) {
  const int32_t values[] = {5, -1, 9, /* row 2 */ 0, 7, 3};
  auto result = Classify(values, sizeof values, INFERD_TYPE_INT32, {2, 3}, true, 2, {}, "o");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value().shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Elements(result.value().data),
            (std::vector<std::string>{"9:2", "5:0", "7:1", "3:2"}));
}

TEST(ClassificationTest, ClassCountLargerThanTheRowGivesTheWholeRow) {
  const double values[] = {1.5, 2.5};
  auto result = Classify(values, sizeof values, INFERD_TYPE_FP64, {2}, false, 10, {}, "o");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value().shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(Elements(result.value().data), (std::vector<std::string>{"2.500000:1", "1.500000:0"}));
}

TEST(ClassificationTest, RefusesBytesAndMismatchedSizes) {
  const char text[] = "abcd";
  EXPECT_EQ(Classify(text, 4, INFERD_TYPE_BYTES, {1}, false, 1, {}, "output 'S'").status().code(),
            Status::Code::kInvalidArg);
  const float values[] = {1, 2, 3};
  auto bad = Classify(values, sizeof values, INFERD_TYPE_FP32, {4}, false, 1, {}, "output 'P'");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("output 'P'"), std::string::npos);
}

}  // namespace
}  // namespace inferd
