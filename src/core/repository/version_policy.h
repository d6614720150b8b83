// The version policy of a model (latest n / all / specific) as a stateless
// function from the versions on disk to the versions to serve.
#ifndef INFERD_CORE_REPOSITORY_VERSION_POLICY_H_
#define INFERD_CORE_REPOSITORY_VERSION_POLICY_H_

#include <vector>

#include "model_config.pb.h"

namespace inferd {

struct VersionSelection {
  std::vector<int64_t> load;     // ascending
  std::vector<int64_t> missing;  // asked for by a specific policy but not on disk
};

// `available` must be ascending. An unset policy means latest 1.
VersionSelection SelectVersions(const inference::ModelVersionPolicy& policy,
                                const std::vector<int64_t>& available);

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_VERSION_POLICY_H_
