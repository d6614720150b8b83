#include "stub_process.h"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace inferd::python {
namespace {

TEST(StubProcessTest, DescribesExitStatusAndSignal) {
  EXPECT_EQ(DescribeExit(3 << 8), "exited with status 3");
  EXPECT_EQ(DescribeExit(SIGKILL), "killed by signal 9 (SIGKILL)");
  EXPECT_EQ(DescribeExit(SIGSEGV), "killed by signal 11 (SIGSEGV)");
}

TEST(StubProcessTest, RunsAProgramWithTheDescriptorsInPlace) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  StubProcess process;
  // fd 3 is the main channel: the child writes through it.
  ASSERT_TRUE(process.Start({"/bin/sh", "-c", "echo hi >&3; exit 4"}, fds[1], fds[1], fds[1]).ok());
  close(fds[1]);
  char buffer[8] = {};
  EXPECT_EQ(read(fds[0], buffer, sizeof buffer), 3);
  EXPECT_EQ(std::string(buffer, 2), "hi");
  EXPECT_EQ(process.Wait(), "exited with status 4");
  close(fds[0]);
}

TEST(StubProcessTest, ReportsAMissingInterpreter) {
  StubProcess process;
  EXPECT_FALSE(process.Start({"/nonexistent/python3"}, 0, 1, 2).ok());
}

}  // namespace
}  // namespace inferd::python
