// Priority classes in admission control: where a model's dynamic batcher has
// priority levels, a lower priority (a higher level number) is shed first.
// Level p of L keeps (L - p + 1) / L of the queue time target: level 1 the
// whole target, the last level 1/L of it, so as the queue grows the lowest
// priority is refused first and the highest last. Header-only, pure.
#ifndef INFERD_CORE_MODEL_ADMISSION_PRIORITY_H_
#define INFERD_CORE_MODEL_ADMISSION_PRIORITY_H_

#include <cstdint>

#include "model_config.pb.h"

namespace inferd {

// The priority level a request asking for `priority` gets (Triton's rule: 0
// or a level the model lacks means the default level); 1 without levels.
inline uint64_t PriorityLevelOf(const inference::ModelConfig& config, uint32_t priority) {
  if (!config.has_dynamic_batching()) return 1;
  const uint64_t levels = config.dynamic_batching().priority_levels();
  if (priority > 0 && priority <= levels) return priority;
  const uint64_t fallback = config.dynamic_batching().default_priority_level();
  return fallback > 0 ? fallback : 1;
}

// The target a request at `level` of `levels` is held to.
inline uint64_t PriorityTargetNs(uint64_t target_ns, uint64_t levels, uint64_t level) {
  if (levels <= 1 || level == 0 || level > levels) return target_ns;
  return target_ns / levels * (levels - level + 1);
}

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_ADMISSION_PRIORITY_H_
