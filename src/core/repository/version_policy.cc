#include "core/repository/version_policy.h"

#include <algorithm>

namespace inferd {

VersionSelection SelectVersions(const inference::ModelVersionPolicy& policy,
                                const std::vector<int64_t>& available) {
  VersionSelection selection;
  switch (policy.policy_choice_case()) {
    case inference::ModelVersionPolicy::kAll:
      selection.load = available;
      break;
    case inference::ModelVersionPolicy::kSpecific: {
      std::vector<int64_t> wanted(policy.specific().versions().begin(),
                                  policy.specific().versions().end());
      std::sort(wanted.begin(), wanted.end());
      wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
      for (int64_t version : wanted) {
        if (std::binary_search(available.begin(), available.end(), version)) {
          selection.load.push_back(version);
        } else {
          selection.missing.push_back(version);
        }
      }
      break;
    }
    default: {
      const uint32_t n =
          policy.has_latest() ? std::max<uint32_t>(1, policy.latest().num_versions()) : 1;
      const size_t keep = std::min<size_t>(n, available.size());
      selection.load.assign(available.end() - keep, available.end());
      break;
    }
  }
  return selection;
}

}  // namespace inferd
