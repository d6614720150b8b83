#include "auth_file.h"

#include <spdlog/spdlog.h>

namespace inferd {

StatusOr<std::unique_ptr<AuthFile>> AuthFile::Open(const std::string& path) {
  std::unique_ptr<AuthFile> file(new AuthFile());
  ASSIGN_OR_RETURN(file->access_, auth::AccessControl::Open(path));
  AuthFile* self = file.get();
  ASSIGN_OR_RETURN(file->watcher_, FileWatcher::Start({path}, [self] { self->Reload(); }));
  SPDLOG_INFO("API keys: {} from auth file {}; every request but health checks needs one",
              file->access_->key_count(), path);
  return file;
}

AuthFile::~AuthFile() { watcher_.reset(); }

void AuthFile::Reload() {
  if (Status s = access_->Reload(); !s.ok()) {
    SPDLOG_ERROR("{}; keeping the {} API keys read before", s.message(), access_->key_count());
    return;
  }
  SPDLOG_INFO("auth file {} re-read: {} API keys", access_->path(), access_->key_count());
}

}  // namespace inferd
