#include "stub_process.h"

#include <poll.h>
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

TEST(StubProcessTest, ExitFdBecomesReadableWhenTheProcessEnds) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  StubProcess process;
  // The child waits for a line on fd 3... which never comes: it is killed.
  ASSERT_TRUE(process.Start({"/bin/sh", "-c", "read x <&3"}, fds[0], fds[0], fds[0]).ok());
  const int exit_fd = process.OpenExitFd();
  ASSERT_GE(exit_fd, 0);
  pollfd p{exit_fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);  // still running
  process.Kill();
  EXPECT_EQ(poll(&p, 1, 10'000), 1);
  EXPECT_EQ(process.Wait(), "killed by signal 9 (SIGKILL)");
  close(exit_fd);
  close(fds[0]);
  close(fds[1]);
}

TEST(StubProcessTest, ReportsAMissingInterpreter) {
  StubProcess process;
  EXPECT_FALSE(process.Start({"/nonexistent/python3"}, 0, 1, 2).ok());
}

}  // namespace
}  // namespace inferd::python
