// The fil backend's own folder (see shared_library.h).
#include "shared_library.h"

#include <filesystem>

namespace inferd::fil {

std::string BackendFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&BackendFolder), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

}  // namespace inferd::fil
