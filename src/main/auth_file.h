// --auth-file while the server runs: the API keys every frontend checks
// (common/auth/access_control.h), re-read when the file changes (a
// FileWatcher, within a second) and at SIGHUP, without a restart and without
// touching a connection. A reload that fails is logged and changes nothing.
#ifndef INFERD_MAIN_AUTH_FILE_H_
#define INFERD_MAIN_AUTH_FILE_H_

#include <memory>
#include <string>

#include "common/auth/access_control.h"
#include "common/file_watcher.h"
#include "inferd/base/status.h"

namespace inferd {

class AuthFile {
 public:
  // Reads `path` and starts watching it. INVALID_ARG naming file:line when
  // it is malformed, or the folder when it cannot be watched.
  static StatusOr<std::unique_ptr<AuthFile>> Open(const std::string& path);
  ~AuthFile();  // stops watching first

  const auth::AccessControl& access() const { return *access_; }

  // SIGHUP: re-reads the file soon (on the watcher's thread, as every
  // reload), changed or not. Any thread.
  void ReloadSoon() { watcher_->Trigger(); }

 private:
  AuthFile() = default;
  // Re-reads the file, logging the outcome.
  void Reload();

  std::unique_ptr<auth::AccessControl> access_;
  std::unique_ptr<FileWatcher> watcher_;  // calls Reload; stopped before access_ goes
};

}  // namespace inferd

#endif  // INFERD_MAIN_AUTH_FILE_H_
