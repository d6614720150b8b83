// Host policies (--host-policy=<name>,<setting>=<value>): where an instance's
// execution thread runs. An instance follows the policy its instance_group
// names in `host_policy`, by default "cpu" for KIND_CPU and "model" for
// KIND_MODEL instances (Triton's names); a name no --host-policy gives means
// no constraint.
#ifndef INFERD_CORE_MODEL_HOST_POLICY_H_
#define INFERD_CORE_MODEL_HOST_POLICY_H_

#include <map>
#include <string>

#include "inferd/base/status.h"

namespace inferd {

struct HostPolicy {
  int numa_node = -1;  // numa-node: memory preferably from this node; -1: any
  int first_cpu = -1;  // cpu-cores: the thread runs on CPUs first..last; -1: any
  int last_cpu = -1;
};

using HostPolicies = std::map<std::string, HostPolicy, std::less<>>;

// Applies `setting`=`value` ("numa-node" = <node id>, "cpu-cores" = <cpu> or
// <first>-<last>) to `policy`. Errors name the setting and say what is valid:
// an unknown setting, a malformed value, a NUMA node or CPU this machine lacks.
Status SetHostPolicy(HostPolicy* policy, const std::string& setting, const std::string& value);

// Binds the calling thread as `policy` says (CPU affinity, preferred NUMA node).
Status ApplyHostPolicy(const HostPolicy& policy);

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_HOST_POLICY_H_
