// Host policies: the settings --host-policy takes, and binding a thread.
#include "core/model/host_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace inferd {
namespace {

using ::testing::HasSubstr;

TEST(HostPolicyTest, CpuCoresTakeOneCpuOrARange) {
  HostPolicy policy;
  ASSERT_TRUE(SetHostPolicy(&policy, "cpu-cores", "0").ok());
  EXPECT_EQ(policy.first_cpu, 0);
  EXPECT_EQ(policy.last_cpu, 0);
  if (std::thread::hardware_concurrency() >= 2) {
    ASSERT_TRUE(SetHostPolicy(&policy, "cpu-cores", "0-1").ok());
    EXPECT_EQ(policy.last_cpu, 1);
  }
}

TEST(HostPolicyTest, RefusesWhatItCannotHonour) {
  HostPolicy policy;
  EXPECT_THAT(SetHostPolicy(&policy, "cores", "0").message(),
              HasSubstr("unknown host policy setting 'cores'"));
  for (const char* bad : {"", "x", "1-0", "-1", "0-", "0-x"}) {
    EXPECT_THAT(SetHostPolicy(&policy, "cpu-cores", bad).message(),
                HasSubstr("is not <cpu> or <first>-<last>"))
        << bad;
  }
  EXPECT_THAT(SetHostPolicy(&policy, "cpu-cores", "100000").message(),
              HasSubstr("this machine has CPUs 0 to"));
  EXPECT_THAT(SetHostPolicy(&policy, "numa-node", "x").message(), HasSubstr("not a NUMA node"));
  EXPECT_THAT(SetHostPolicy(&policy, "numa-node", "100000").message(),
              HasSubstr("no NUMA node 100000"));
  EXPECT_EQ(policy.first_cpu, -1);  // nothing was set
  EXPECT_EQ(policy.numa_node, -1);
}

TEST(HostPolicyTest, ApplyBindsTheCallingThread) {
  HostPolicy policy;
  ASSERT_TRUE(SetHostPolicy(&policy, "cpu-cores", "0").ok());
  cpu_set_t seen;
  CPU_ZERO(&seen);
  Status applied;
  std::thread([&] {
    applied = ApplyHostPolicy(policy);
    sched_getaffinity(0, sizeof(seen), &seen);
  }).join();
  ASSERT_TRUE(applied.ok()) << applied.message();
  EXPECT_EQ(CPU_COUNT(&seen), 1);
  EXPECT_TRUE(CPU_ISSET(0, &seen));
}

}  // namespace
}  // namespace inferd
