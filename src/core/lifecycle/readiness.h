// Strict readiness (--strict-readiness, default true): which models keep the
// server from being ready, as Triton 2.51 decides it. Triton counts the
// models its model lifecycle holds, and a model reaches that only once a load
// got past its configuration; so a load refused before (a model not in the
// repository, a config.pbtxt that cannot be read or is invalid, a JSON config
// override that is, an ensemble whose steps do not fit its composing models)
// never changes readiness. A model that reached it counts until it is
// unloaded: it holds readiness back while it has no version to serve (no
// version folder; the policy's only versions missing; a first load still
// under way) or a version that is neither READY nor skipped (its load failed:
// the backend's initialization, say). A version that failed to reload but
// still serves its previous load is READY; an ensemble that does not serve
// because a composing model was unloaded is not counted (Triton unloads it).
// Pure function; unit-tested as such.
#ifndef INFERD_CORE_LIFECYCLE_READINESS_H_
#define INFERD_CORE_LIFECYCLE_READINESS_H_

#include <string>

#include "core/lifecycle/model_record.h"

namespace inferd {

// Why the model `record` holds back strict readiness ("no version to serve",
// "version 2 is UNAVAILABLE"); empty when it does not.
std::string HoldsBackReadiness(const ModelRecord& record);

// True when no model of `records` holds back strict readiness.
bool StrictlyReady(const ModelRecords& records);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_READINESS_H_
