// Appending record lines (see recorder.h).
#include "common/recorder.h"

#include <cstdio>

namespace inferd::backend_common {

void Recorder::Append(const std::string& path, const std::string& lines) {
  if (path.empty() || lines.empty()) return;
  MutexLock lock(&mu_);
  if (FILE* file = std::fopen(path.c_str(), "a")) {
    std::fwrite(lines.data(), 1, lines.size(), file);
    std::fclose(file);
  }
}

}  // namespace inferd::backend_common
