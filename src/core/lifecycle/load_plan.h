// What a load of a model does with the versions that serve already, decided
// without threads or backends (TF Serving's AspiredVersionPolicy has the same
// place): nothing at all, which versions to keep rather than load again, which
// to retire before the load starts; and, once the loader answered, which
// versions serve and which retire. Pure functions; unit-tested as such.
#ifndef INFERD_CORE_LIFECYCLE_LOAD_PLAN_H_
#define INFERD_CORE_LIFECYCLE_LOAD_PLAN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/lifecycle/control_mode.h"
#include "core/lifecycle/model_loader.h"
#include "core/lifecycle/model_record.h"
#include "core/repository/model_fingerprint.h"

namespace inferd {

// Why a model loads, which decides how much of what serves it may keep.
enum class LoadKind {
  // Every version loads again (the repository API with a config or files).
  kFresh,
  // Nothing to do when a version serves already (the start; an ensemble's
  // composing model), else as kFresh. Whether one serves is the serving
  // table's to say (an ensemble may be READY and not serve): the lifecycle
  // looks before it plans.
  kIfNotReady,
  // Nothing to do when every version serves and the files are those of the
  // last load (the repository API's plain load, as Triton), else as
  // kChangedVersions.
  kIfChanged,
  // Versions whose files did not change keep serving; the others load (POLL).
  kChangedVersions,
};

// What the plan reads of a model's record.
struct CurrentLoad {
  struct Version {
    bool loaded = false;  // has a model object (serving, or kept after a failed reload)
    bool ready = false;
    bool clean = true;  // no reason attached (a failed reload leaves one)
  };
  bool failed = false;  // the last load failed as a whole
  bool config_overridden = false;
  bool files_overridden = false;
  ModelFingerprint fingerprint;  // what the serving versions came from
  std::map<int64_t, Version> versions;
};

struct LoadPlan {
  bool nothing_to_do = false;
  std::set<int64_t> reuse;         // serving versions the loader hands back as they are
  std::set<int64_t> retire_first;  // leave before the load (resource-preserving)
};

// `now`: the model's files as they are.
LoadPlan PlanLoad(const CurrentLoad& current, const ModelFingerprint& now, LoadKind kind,
                  TransitionPolicy policy);

CurrentLoad CurrentLoadOf(const ModelRecord& record);

// The reason a version that failed to reload, but serves its previous load, shows.
extern const char kKeptPrevious[];

// Replaces `versions` by the outcome of a load: new versions serve, a version
// that failed to reload keeps its previous load; what no longer serves goes to
// `retire`. Returns the failures, "; "-joined (empty when none).
std::string MergeLoadedVersions(const std::vector<ModelLoadResult::Version>& loaded_versions,
                                std::map<int64_t, VersionRecord>* versions,
                                std::vector<std::shared_ptr<ModelVersion>>* retire);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_LOAD_PLAN_H_
