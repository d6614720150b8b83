// Checks of a config's scheduling choice: dynamic_batching,
// sequence_batching (control inputs, states, strategies) and the basic shape
// of ensemble_scheduling. Part of ValidateModelConfig. Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_SCHEDULING_CONFIG_VALIDATOR_H_
#define INFERD_CORE_CONFIG_SCHEDULING_CONFIG_VALIDATOR_H_

#include "inferd/base/status.h"
#include "core/config/config_error.h"

namespace inferd {

// OK, or the first problem found, as an error naming the field. Checks only
// the section the config sets; ensemble steps are checked for presence only
// (the data flow between steps is checked where composing models are known).
Status ValidateSchedulingChoice(const ConfigErrors& errors);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_SCHEDULING_CONFIG_VALIDATOR_H_
