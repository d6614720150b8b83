// Appending record lines.
#include "recorder.h"

#include <cstdio>

namespace inferd::accumulate {

void Recorder::Append(const std::string& lines) {
  if (path_.empty() || lines.empty()) return;
  MutexLock lock(&mu_);
  if (FILE* file = std::fopen(path_.c_str(), "a")) {
    std::fwrite(lines.data(), 1, lines.size(), file);
    std::fclose(file);
  }
}

}  // namespace inferd::accumulate
