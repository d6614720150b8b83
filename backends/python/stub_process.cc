#include "stub_process.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace inferd::python {

std::string DescribeExit(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  }
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(sig);
    return "killed by signal " + std::to_string(sig) +
           (abbrev ? " (SIG" + std::string(abbrev) + ")" : std::string());
  }
  return "ended with wait status " + std::to_string(wait_status);
}

StubProcess::~StubProcess() {
  if (pid_ > 0) {
    Kill();
    Wait();
  }
}

Status StubProcess::Start(const std::vector<std::string>& argv, int main_fd, int call_fd,
                          int shm_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 onto 3, 4, 5 clears close-on-exec there; every other descriptor of
  // the server is close-on-exec and stays behind. The sources are moved out of
  // the way first, in case one of them already is 3, 4 or 5.
  const int high[3] = {main_fd, call_fd, shm_fd};
  for (int i = 0; i < 3; ++i) posix_spawn_file_actions_adddup2(&actions, high[i], 100 + i);
  for (int i = 0; i < 3; ++i) posix_spawn_file_actions_adddup2(&actions, 100 + i, 3 + i);
  for (int i = 0; i < 3; ++i) posix_spawn_file_actions_addclose(&actions, 100 + i);
  // The server blocks signals in its threads (it waits for them in one);
  // the stub gets a clean mask and default handlers, so SIGTERM ends it.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawn(&pid_, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    pid_ = -1;
    return Status::Unavailable("cannot start the Python stub with '" + argv[0] +
                               "': " + strerror(rc));
  }
  return Status::Ok();
}

std::string StubProcess::Wait() {
  if (pid_ <= 0) return "was not running";
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  pid_ = -1;
  if (r < 0) return "could not be waited for: " + std::string(strerror(errno));
  return DescribeExit(status);
}

void StubProcess::AwaitExit() const {
  if (pid_ <= 0) return;
  siginfo_t info;
  while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
}

bool StubProcess::HasExited() const {
  if (pid_ <= 0) return true;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) < 0) return true;
  return info.si_pid != 0;
}

int StubProcess::OpenExitFd() const {
  if (pid_ <= 0) return -1;
  return static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
}

void StubProcess::Kill() const {
  if (pid_ > 0) kill(pid_, SIGKILL);
}

}  // namespace inferd::python
