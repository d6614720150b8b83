// --model-memory-budget's values, and the /proc readings the budget uses.
#include "core/common/process_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace inferd {
namespace {

using ::testing::HasSubstr;

TEST(ProcessMemoryTest, ParsesBytesUnitsAndPercentages) {
  EXPECT_EQ(ParseMemoryBudget("1048576", 0).value(), 1048576u);
  EXPECT_EQ(ParseMemoryBudget("2Gi", 0).value(), 2u << 30);
  EXPECT_EQ(ParseMemoryBudget("1.5M", 0).value(), 1'500'000u);
  EXPECT_EQ(ParseMemoryBudget("512Ki", 0).value(), 512u * 1024);
  EXPECT_EQ(ParseMemoryBudget("60%", 1000).value(), 600u);
  EXPECT_EQ(ParseMemoryBudget("100%", 1000).value(), 1000u);
}

TEST(ProcessMemoryTest, RefusesBadValuesNamingTheFlag) {
  for (const char* bad : {"", "lots", "-5", "0", "0%", "150%", "5X", "nan", "1e30"}) {
    StatusOr<uint64_t> parsed = ParseMemoryBudget(bad, 1000);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArg);
    EXPECT_THAT(parsed.status().message(), HasSubstr("--model-memory-budget=" + std::string(bad)));
  }
}

TEST(ProcessMemoryTest, ResidentBytesGrowWithTouchedMemory) {
  const uint64_t before = ProcessTreeResidentBytes();
  EXPECT_GT(before, 0u);
  std::vector<char> touched(64 << 20, 1);  // 64 MiB, every page written
  const uint64_t after = ProcessTreeResidentBytes();
  EXPECT_GE(after, before + (48u << 20));
  EXPECT_EQ(touched[12345], 1);
  EXPECT_GT(MemoryLimitBytes(), 0u);
}

}  // namespace
}  // namespace inferd
