// Starting, watching and ending one Python stub process. The stub gets the
// main control channel as fd 3, the call channel as fd 4 and the shared
// memory region as fd 5 (inferd_python_stub.py knows these numbers).
// Thread-compatible: one owner (the instance's supervisor thread).
#ifndef INFERD_BACKENDS_PYTHON_STUB_PROCESS_H_
#define INFERD_BACKENDS_PYTHON_STUB_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "inferd/base/status.h"

namespace inferd::python {

// How a process ended, in words: "exited with status 3", "killed by signal 9
// (SIGKILL)". `wait_status` is what waitpid reported.
std::string DescribeExit(int wait_status);

class StubProcess {
 public:
  StubProcess() = default;
  ~StubProcess();  // kills and reaps a stub still running
  StubProcess(const StubProcess&) = delete;
  StubProcess& operator=(const StubProcess&) = delete;

  // Runs `argv` (argv[0] the interpreter's path) with the three descriptors
  // in place. No shell, and nothing else of the server's is inherited.
  Status Start(const std::vector<std::string>& argv, int main_fd, int call_fd, int shm_fd);
  // Waits for the process to end without reaping it (its pid stays valid).
  void AwaitExit() const;
  // Whether it ended (not reaping it either).
  bool HasExited() const;
  // Waits for the process to end, reaps it and describes how (DescribeExit).
  std::string Wait();
  // A descriptor that becomes readable when the process ends (pidfd); -1 if
  // the kernel has none. The caller closes it.
  int OpenExitFd() const;
  // Sends SIGKILL (the process is reaped by Wait or the destructor).
  void Kill() const;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_STUB_PROCESS_H_
