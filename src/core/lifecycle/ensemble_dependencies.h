// The composing models an ensemble's load needs first, worked out before any
// of them loads: the order to load them in (what a model runs before the
// model), and the steps that cannot load because the ensembles form a cycle.
// An ensemble's load then loads that order and never waits on an ensemble
// that waits on it. Pure functions; unit-tested as such.
#ifndef INFERD_CORE_LIFECYCLE_ENSEMBLE_DEPENDENCIES_H_
#define INFERD_CORE_LIFECYCLE_ENSEMBLE_DEPENDENCIES_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// The key (ModelKey) of the model an ensemble step runs: its namespace is set
// by the loader with --model-namespacing.
std::string StepKey(const inference::ModelEnsembling::Step& step);

struct DependencyOrder {
  // Models to load before the ensemble, each after the models it runs; each once.
  std::vector<std::string> load;
  // Composing models of the ensemble itself that must not load, with the
  // reason (a cycle back into the ensemble or among the ensembles they run).
  std::map<std::string, Status> refused;
};

// The keys of the models the steps of model `key` run, in step order; empty
// for a model that is not an ensemble or cannot be read (its load says why).
using StepsOf = std::function<std::vector<std::string>(const std::string& key)>;
// Whether model `key` serves already (then nothing it runs loads).
using Serves = std::function<bool(const std::string& key)>;

// For ensemble `root`, whose steps run `root_steps`. A composing model that
// serves is not looked into, as it loads nothing; one that does not is
// refused when any ensemble reachable from it runs a model of the chain from
// `root` to it ("ensembles form a cycle: 'a' -> 'b' -> 'a'").
DependencyOrder OrderDependencies(const std::string& root,
                                  const std::vector<std::string>& root_steps,
                                  const StepsOf& steps_of, const Serves& serves);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_ENSEMBLE_DEPENDENCIES_H_
