#include "core/model/host_policy.h"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <thread>

namespace inferd {
namespace {

bool ParseId(std::string_view text, int* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out >= 0;
}

constexpr int kMpolPreferred = 1;  // linux/mempolicy.h

}  // namespace

Status SetHostPolicy(HostPolicy* policy, const std::string& setting, const std::string& value) {
  if (setting == "numa-node") {
    int node = -1;
    if (!ParseId(value, &node)) {
      return Status::InvalidArg("host policy setting numa-node: '" + value +
                                "' is not a NUMA node id");
    }
    if (!std::filesystem::exists("/sys/devices/system/node/node" + std::to_string(node))) {
      return Status::InvalidArg("host policy setting numa-node: this machine has no NUMA node " +
                                value);
    }
    policy->numa_node = node;
    return Status::Ok();
  }
  if (setting == "cpu-cores") {
    const size_t dash = value.find('-');
    int first = -1;
    int last = -1;
    const bool ok = dash == std::string::npos
                        ? ParseId(value, &first) && ParseId(value, &last)
                        : ParseId(std::string_view(value).substr(0, dash), &first) &&
                              ParseId(std::string_view(value).substr(dash + 1), &last);
    if (!ok || first > last) {
      return Status::InvalidArg("host policy setting cpu-cores: '" + value +
                                "' is not <cpu> or <first>-<last>");
    }
    const int cpus = static_cast<int>(std::thread::hardware_concurrency());
    if (cpus > 0 && last >= cpus) {
      return Status::InvalidArg("host policy setting cpu-cores: this machine has CPUs 0 to " +
                                std::to_string(cpus - 1) + ", not " + value);
    }
    policy->first_cpu = first;
    policy->last_cpu = last;
    return Status::Ok();
  }
  return Status::InvalidArg("unknown host policy setting '" + setting +
                            "'; the settings are numa-node and cpu-cores");
}

Status ApplyHostPolicy(const HostPolicy& policy) {
  if (policy.first_cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = policy.first_cpu; cpu <= policy.last_cpu; ++cpu) CPU_SET(cpu, &set);
    if (int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set); rc != 0) {
      return Status::Internal("cannot bind the thread to CPUs " +
                              std::to_string(policy.first_cpu) + "-" +
                              std::to_string(policy.last_cpu) + " (error " + std::to_string(rc) +
                              ")");
    }
  }
  if (policy.numa_node >= 0) {
    unsigned long mask[16] = {};
    const unsigned long bits = sizeof(unsigned long) * 8;
    if (static_cast<unsigned long>(policy.numa_node) >= bits * 16) {
      return Status::InvalidArg("NUMA node " + std::to_string(policy.numa_node) + " is too large");
    }
    mask[policy.numa_node / bits] |= 1UL << (policy.numa_node % bits);
    if (syscall(SYS_set_mempolicy, kMpolPreferred, mask, bits * 16 + 1) != 0) {
      return Status::Internal("cannot prefer memory of NUMA node " +
                              std::to_string(policy.numa_node));
    }
  }
  return Status::Ok();
}

}  // namespace inferd
