// A cheap summary of a model folder's files (names, sizes, modification
// times) used by POLL mode to see what changed: the folder minus its version
// folders (config.pbtxt, label files, ...) and each version folder apart, so
// that only what changed is reloaded. Equal fingerprints on two polls in a
// row also tell that nobody is still writing the folder. Pure functions.
#ifndef INFERD_CORE_REPOSITORY_MODEL_FINGERPRINT_H_
#define INFERD_CORE_REPOSITORY_MODEL_FINGERPRINT_H_

#include <cstdint>
#include <filesystem>
#include <map>

namespace inferd {

struct ModelFingerprint {
  uint64_t top = 0;                     // everything outside version folders
  std::map<int64_t, uint64_t> versions;  // each numeric version folder
  bool operator==(const ModelFingerprint&) const = default;
};

ModelFingerprint FingerprintModel(const std::filesystem::path& model_dir);

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_MODEL_FINGERPRINT_H_
