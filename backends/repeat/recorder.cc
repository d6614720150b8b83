// Appending record lines.
#include "recorder.h"

#include <cstdio>

namespace inferd::repeat {

void Recorder::Append(const std::string& path, const std::string& line) {
  if (path.empty()) return;
  MutexLock lock(&mu_);
  if (FILE* file = std::fopen(path.c_str(), "a")) {
    std::fprintf(file, "%s\n", line.c_str());
    std::fclose(file);
  }
}

}  // namespace inferd::repeat
