#include "common/file_watcher.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace inferd {
namespace {

// The file's bytes; empty when it cannot be read (missing, mid-rename).
std::string ReadAll(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Drains what `fd` has to read (inotify events, the eventfd's count).
void Drain(int fd) {
  char buffer[4096];
  while (::read(fd, buffer, sizeof buffer) > 0) {
  }
}

}  // namespace

StatusOr<std::unique_ptr<FileWatcher>> FileWatcher::Start(std::vector<std::string> paths,
                                                          std::function<void()> on_change) {
  const int inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd < 0) return Status::Internal(std::string("inotify_init1: ") + strerror(errno));
  std::set<std::string> folders;
  for (const std::string& path : paths) {
    std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    folders.insert(folder.string());
  }
  constexpr uint32_t kEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE |
                               IN_MOVED_FROM | IN_MODIFY | IN_ATTRIB;
  for (const std::string& folder : folders) {
    if (inotify_add_watch(inotify_fd, folder.c_str(), kEvents) < 0) {
      const std::string why = strerror(errno);
      ::close(inotify_fd);
      return Status::InvalidArg("cannot watch folder '" + folder + "' for changes: " + why);
    }
  }
  const int wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd < 0) {
    ::close(inotify_fd);
    return Status::Internal(std::string("eventfd: ") + strerror(errno));
  }
  std::unique_ptr<FileWatcher> watcher(
      new FileWatcher(std::move(paths), std::move(on_change), inotify_fd, wake_fd));
  watcher->thread_ = std::thread([w = watcher.get()] {
    pthread_setname_np(pthread_self(), "inferd-watch");
    w->Run();
  });
  return watcher;
}

FileWatcher::FileWatcher(std::vector<std::string> paths, std::function<void()> on_change,
                         int inotify_fd, int wake_fd)
    : paths_(std::move(paths)),
      on_change_(std::move(on_change)),
      inotify_fd_(inotify_fd),
      wake_fd_(wake_fd) {
  for (const std::string& path : paths_) contents_.push_back(ReadAll(path));
}

FileWatcher::~FileWatcher() {
  stopping_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  ::close(inotify_fd_);
  ::close(wake_fd_);
}

void FileWatcher::Trigger() {
  triggered_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
}

void FileWatcher::Run() {
  pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (!stopping_) {
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (stopping_) return;
    Drain(wake_fd_);
    if ((fds[0].revents & POLLIN) != 0) {
      Drain(inotify_fd_);
      Settle();
    }
    if (stopping_) return;
    const bool changed = Changed();
    if (changed || triggered_.exchange(false)) on_change_();
  }
}

void FileWatcher::Settle() {
  const auto until = std::chrono::steady_clock::now() + kMaxSettle;
  pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (!stopping_ && std::chrono::steady_clock::now() < until) {
    const int ready = ::poll(fds, 2, static_cast<int>(kSettle.count()));
    if (ready == 0) return;  // quiet for kSettle
    if (ready < 0 && errno != EINTR) return;
    if ((fds[1].revents & POLLIN) != 0) return;  // a Trigger or the stop: go now
    Drain(inotify_fd_);
  }
}

bool FileWatcher::Changed() {
  bool changed = false;
  for (size_t i = 0; i < paths_.size(); ++i) {
    std::string now = ReadAll(paths_[i]);
    if (now != contents_[i]) {
      contents_[i] = std::move(now);
      changed = true;
    }
  }
  return changed;
}

}  // namespace inferd
