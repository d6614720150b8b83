#include "core/trace/trace_file.h"

#include <cerrno>
#include <cstring>

#include "core/common/logging.h"

namespace inferd {

TraceFile::~TraceFile() {
  MutexLock lock(&mu_);
  if (main_ != nullptr) std::fclose(main_);
}

void TraceFile::WriteIndexed(const std::string& traces) {
  std::string name;
  {
    MutexLock lock(&mu_);
    name = path_ + "." + std::to_string(next_index_++);
  }
  std::FILE* file = std::fopen(name.c_str(), "w");
  if (file == nullptr) {
    LOG_ERROR("cannot write trace file '{}': {}", name, std::strerror(errno));
    return;
  }
  std::fputc('[', file);
  std::fwrite(traces.data(), 1, traces.size(), file);
  std::fputs("]\n", file);
  if (std::fclose(file) != 0) {
    LOG_ERROR("cannot write trace file '{}': {}", name, std::strerror(errno));
  }
}

void TraceFile::Append(const std::string& traces) {
  if (traces.empty()) return;
  MutexLock lock(&mu_);
  if (main_ == nullptr) {
    main_ = std::fopen(path_.c_str(), "w+");
    if (main_ == nullptr) {
      LOG_ERROR("cannot write trace file '{}': {}", path_, std::strerror(errno));
      return;
    }
  }
  if (main_has_traces_) {
    // Overwrite the closing "]\n" so the array grows and stays complete.
    std::fseek(main_, -2, SEEK_END);
    std::fputc(',', main_);
  } else {
    std::fputc('[', main_);
  }
  std::fwrite(traces.data(), 1, traces.size(), main_);
  std::fputs("]\n", main_);
  if (std::fflush(main_) != 0) {
    LOG_ERROR("cannot write trace file '{}': {}", path_, std::strerror(errno));
  }
  main_has_traces_ = true;
}

}  // namespace inferd
