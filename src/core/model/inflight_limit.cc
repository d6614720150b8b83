#include "core/model/inflight_limit.h"

#include <algorithm>

namespace inferd {

namespace {

// True when every priority level of the dynamic batcher has a max_queue_size.
bool QueuesBounded(const inference::ModelDynamicBatching& batching) {
  const uint32_t levels = std::max<uint32_t>(1, batching.priority_levels());
  for (uint32_t level = 1; level <= levels; ++level) {
    const auto found = batching.priority_queue_policy().find(level);
    const inference::ModelQueuePolicy& policy = found != batching.priority_queue_policy().end()
                                                    ? found->second
                                                    : batching.default_queue_policy();
    if (policy.max_queue_size() == 0) return false;
  }
  return true;
}

}  // namespace

uint64_t InflightLimitFor(uint64_t server_limit, const inference::ModelConfig& config) {
  if (config.has_dynamic_batching() && QueuesBounded(config.dynamic_batching())) return 0;
  return server_limit;
}

Status InflightLimitReached(const std::string& model, uint64_t limit) {
  return Status::Unavailable("model '" + model + "' is overloaded: it already has " +
                             std::to_string(limit) +
                             " requests in flight, the most --model-max-inflight-requests=" +
                             std::to_string(limit) + " allows; retry later");
}

}  // namespace inferd
