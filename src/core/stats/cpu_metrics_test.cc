// CPU metrics: /proc parsing, utilization between two samples, and a sampler
// that samples once per interval on the injected clock, never per read.
#include "core/stats/cpu_metrics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using std::chrono::milliseconds;

constexpr const char* kMeminfo =
    "MemTotal:       16000000 kB\n"
    "MemFree:         1000000 kB\n"
    "MemAvailable:    6000000 kB\n"
    "Buffers:          200000 kB\n";

TEST(CpuMetricsTest, ParsesTheAggregateCpuLine) {
  CpuTimes t;
  ASSERT_TRUE(ParseProcStat("cpu  10 2 30 400 5 6 7 8 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n", &t));
  EXPECT_EQ(t.user, 10u);
  EXPECT_EQ(t.nice, 2u);
  EXPECT_EQ(t.system, 30u);
  EXPECT_EQ(t.idle, 400u);
  EXPECT_EQ(t.iowait, 5u);
  EXPECT_EQ(t.steal, 8u);
  EXPECT_FALSE(ParseProcStat("cpu0 1 2 3 4\n", &t));
  EXPECT_FALSE(ParseProcStat("", &t));
  EXPECT_FALSE(ParseProcStat("cpu 1 2\n", &t));
}

TEST(CpuMetricsTest, ParsesMemoryAsTotalMinusAvailable) {
  MemoryBytes m;
  ASSERT_TRUE(ParseMeminfo(kMeminfo, &m));
  EXPECT_EQ(m.total, 16000000ull * 1024);
  EXPECT_EQ(m.used, 10000000ull * 1024);
  EXPECT_FALSE(ParseMeminfo("MemTotal: 10 kB\n", &m));
  EXPECT_FALSE(ParseMeminfo("MemTotal: 10 kB\nMemAvailable: 20 kB\n", &m));
}

TEST(CpuMetricsTest, UtilizationIsBusyShareOfTicksPassed) {
  CpuTimes before{100, 0, 100, 1000, 0, 0, 0, 0};
  CpuTimes now{130, 10, 110, 1050, 10, 0, 0, 0};  // busy +50, idle+iowait +60
  EXPECT_DOUBLE_EQ(CpuUtilization(now, before), 50.0 / 110.0);
  EXPECT_EQ(CpuUtilization(before, before), 0.0);
  CpuTimes backwards = before;
  backwards.user = 50;  // a counter that went back counts as no time
  backwards.idle = 1010;
  EXPECT_EQ(CpuUtilization(backwards, before), 0.0);
}

// Files the test rewrites between samples.
struct FakeProc {
  Mutex mu;
  std::string stat GUARDED_BY(mu) = "cpu 100 0 100 800 0 0 0 0\n";
  std::string meminfo GUARDED_BY(mu) = kMeminfo;
  int reads GUARDED_BY(mu) = 0;
  ProcReader Reader() {
    return [this](const char* path) {
      MutexLock lock(&mu);
      ++reads;
      return std::string(path) == "/proc/stat" ? stat : meminfo;
    };
  }
};

TEST(CpuMetricsTest, SamplerSamplesOncePerInterval) {
  FakeClock clock;
  FakeProc proc;
  CpuMetricsSampler sampler(clock, /*interval_ns=*/2'000'000'000, proc.Reader());
  ASSERT_TRUE(clock.AwaitWaiters(1));
  CpuMetricsSampler::Values v = sampler.Read();
  EXPECT_EQ(v.samples, 1u);  // the first sample, at construction
  EXPECT_EQ(v.utilization, 0.0);
  EXPECT_EQ(v.memory_total_bytes, 16000000ull * 1024);
  EXPECT_EQ(v.memory_used_bytes, 10000000ull * 1024);

  {
    MutexLock lock(&proc.mu);
    proc.stat = "cpu 150 0 150 900 0 0 0 0\n";  // busy +100, idle +100
    proc.meminfo = "MemTotal: 16000000 kB\nMemAvailable: 4000000 kB\n";
  }
  clock.Advance(milliseconds(1999));
  ASSERT_TRUE(clock.AwaitWaiters(1));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(sampler.Read().samples, 1u);  // reads do not sample
  {
    MutexLock lock(&proc.mu);
    EXPECT_EQ(proc.reads, 2);
  }

  clock.Advance(milliseconds(1));
  ASSERT_TRUE(clock.AwaitWaiters(1));
  v = sampler.Read();
  EXPECT_EQ(v.samples, 2u);
  EXPECT_DOUBLE_EQ(v.utilization, 0.5);
  EXPECT_EQ(v.memory_used_bytes, 12000000ull * 1024);

  clock.Advance(milliseconds(2000));
  ASSERT_TRUE(clock.AwaitWaiters(1));
  v = sampler.Read();
  EXPECT_EQ(v.samples, 3u);
  EXPECT_EQ(v.utilization, 0.0);  // no tick passed since the last sample
}

TEST(CpuMetricsTest, UnreadableFilesReadAsZero) {
  FakeClock clock;
  CpuMetricsSampler sampler(clock, 1'000'000, [](const char*) { return std::string(); });
  const CpuMetricsSampler::Values v = sampler.Read();
  EXPECT_EQ(v.samples, 1u);
  EXPECT_EQ(v.memory_total_bytes, 0u);
  EXPECT_EQ(v.utilization, 0.0);
}

TEST(CpuMetricsTest, ThisMachinesProcFilesParse) {
  CpuTimes t;
  EXPECT_TRUE(ParseProcStat(ReadProcFile("/proc/stat"), &t));
  MemoryBytes m;
  ASSERT_TRUE(ParseMeminfo(ReadProcFile("/proc/meminfo"), &m));
  EXPECT_GT(m.total, 0u);
  EXPECT_LE(m.used, m.total);
}

}  // namespace
}  // namespace inferd
