// Watches a few small files (an auth file, TLS certificates) and calls back
// when their content changes: written in place, replaced by a rename, or
// swapped under a symlink (a Kubernetes secret's ..data). inotify on their
// folders wakes one thread, which waits until the writes have settled
// (kSettle) and compares the files' bytes with what it saw last, so a change
// takes effect well within a second and an unrelated file in the same
// folder costs a read, no callback. No polling: the thread sleeps in poll(2)
// between events.
#ifndef INFERD_FRONTENDS_COMMON_FILE_WATCHER_H_
#define INFERD_FRONTENDS_COMMON_FILE_WATCHER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inferd/base/status.h"

namespace inferd {

class FileWatcher {
 public:
  // How long the folders must be quiet after an event before the files are
  // compared (an editor's save, or a certificate and its key, is several writes).
  static constexpr std::chrono::milliseconds kSettle{50};
  // The longest a stream of events may delay the comparison.
  static constexpr std::chrono::milliseconds kMaxSettle{500};

  // Watches `paths`, calling `on_change` on the watcher's thread after any
  // of them changes, and at each Trigger. INVALID_ARG naming the folder when
  // it cannot be watched.
  static StatusOr<std::unique_ptr<FileWatcher>> Start(std::vector<std::string> paths,
                                                      std::function<void()> on_change);
  ~FileWatcher();  // stops the thread; no callback runs after it returns
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  // From any thread (a SIGHUP): calls on_change soon, changed or not.
  void Trigger();

 private:
  FileWatcher(std::vector<std::string> paths, std::function<void()> on_change, int inotify_fd,
              int wake_fd);
  void Run();
  // Waits until no event came for kSettle (at most kMaxSettle).
  void Settle();
  // Whether any file's bytes differ from those last seen; remembers the new.
  bool Changed();

  // Constant after construction.
  const std::vector<std::string> paths_;
  const std::function<void()> on_change_;
  const int inotify_fd_;
  const int wake_fd_;  // an eventfd: Trigger and the destructor

  std::vector<std::string> contents_;  // the watcher thread's only
  std::atomic<bool> stopping_{false};
  std::atomic<bool> triggered_{false};
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_FILE_WATCHER_H_
