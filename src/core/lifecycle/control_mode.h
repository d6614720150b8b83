// How models come and go (Triton's --model-control-mode) and how a new
// version replaces an old one (TF Serving's two version transition policies).
#ifndef INFERD_CORE_LIFECYCLE_CONTROL_MODE_H_
#define INFERD_CORE_LIFECYCLE_CONTROL_MODE_H_

namespace inferd {

enum class ModelControlMode {
  kNone,      // everything loads at start; the repository API cannot change it
  kExplicit,  // --load-model at start, then the repository API loads and unloads
  kPoll,      // everything at start, then the repository is rescanned periodically
};

enum class TransitionPolicy {
  kAvailabilityPreserving,  // load the new version, then retire the old one
  kResourcePreserving,      // retire the old version, then load the new one
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_CONTROL_MODE_H_
