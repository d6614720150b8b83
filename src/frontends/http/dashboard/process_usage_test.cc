// This process's CPU time and memory from /proc/<pid>/stat.
#include "http/dashboard/process_usage.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

// A real line's shape: comm holds a space and a parenthesis, nice (field 19) is negative.
constexpr std::string_view kLine =
    "4242 (inferd (x) y) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 50 0 0 20 -5 12 0 "
    "1000 987654321 3000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

TEST(ProcessUsageTest, ReadsCpuTimeAndResidentMemory) {
  const auto usage = ParseProcStatLine(kLine, /*ticks_per_second=*/100, /*page_bytes=*/4096);
  ASSERT_TRUE(usage.has_value());
  EXPECT_DOUBLE_EQ(usage->cpu_seconds, 3.0);  // (250 + 50) ticks at 100 a second
  EXPECT_EQ(usage->resident_bytes, 3000u * 4096u);
}

TEST(ProcessUsageTest, RefusesWhatIsNotAStatLine) {
  EXPECT_FALSE(ParseProcStatLine("", 100, 4096).has_value());
  EXPECT_FALSE(ParseProcStatLine("4242 (x) S 1 2 3", 100, 4096).has_value());
  EXPECT_FALSE(ParseProcStatLine(
                   "1 (x) S 1 1 1 0 -1 0 0 0 0 0 utime 50 0 0 20 0 1 0 1 1 3000 0\n", 100, 4096)
                   .has_value());
  EXPECT_FALSE(ParseProcStatLine(kLine, 0, 4096).has_value());
}

TEST(ProcessUsageTest, ReadsThisProcess) {
  const auto usage = ReadProcessUsage();
  ASSERT_TRUE(usage.has_value());
  EXPECT_GT(usage->resident_bytes, 0u);
  EXPECT_GE(usage->cpu_seconds, 0.0);
}

}  // namespace
}  // namespace inferd::http
