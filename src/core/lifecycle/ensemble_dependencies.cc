#include "core/lifecycle/ensemble_dependencies.h"

#include <algorithm>
#include <set>

#include "core/repository/model_repository.h"

namespace inferd {

std::string StepKey(const inference::ModelEnsembling::Step& step) {
  return ModelKey(step.model_namespace(), step.model_name());
}

namespace {

Status Cycle(const std::vector<std::string>& chain, const std::string& back_to) {
  std::string text;
  for (const std::string& model : chain) text += "'" + model + "' -> ";
  return Status::InvalidArg("ensembles form a cycle: " + text + "'" + back_to + "'");
}

class Resolver {
 public:
  Resolver(const StepsOf& steps_of, const Serves& serves) : steps_of_(steps_of), serves_(serves) {}

  // An error when the ensembles reachable from `chain`'s last model (served
  // or not) lead back into `chain`. `seen`: models looked into already.
  Status CheckNoCycle(std::vector<std::string>* chain, std::set<std::string>* seen) const {
    if (!seen->insert(chain->back()).second) return Status::Ok();
    for (const std::string& step : steps_of_(chain->back())) {
      if (std::find(chain->begin(), chain->end(), step) != chain->end()) {
        return Cycle(*chain, step);
      }
      chain->push_back(step);
      Status status = CheckNoCycle(chain, seen);
      chain->pop_back();
      RETURN_IF_ERROR(status);
    }
    return Status::Ok();
  }

  // Appends `key` to the order after what it runs that does not serve.
  void Place(const std::string& key, DependencyOrder* order) {
    if (!placed_.insert(key).second) return;
    for (const std::string& step : steps_of_(key)) {
      if (!serves_(step)) Place(step, order);
    }
    order->load.push_back(key);
  }

 private:
  const StepsOf& steps_of_;
  const Serves& serves_;
  std::set<std::string> placed_;
};

}  // namespace

DependencyOrder OrderDependencies(const std::string& root,
                                  const std::vector<std::string>& root_steps,
                                  const StepsOf& steps_of, const Serves& serves) {
  DependencyOrder order;
  Resolver resolver(steps_of, serves);
  for (const std::string& step : root_steps) {
    if (order.refused.contains(step)) continue;
    if (step == root) {
      order.refused.emplace(step, Cycle({root}, step));
      continue;
    }
    if (serves(step)) continue;
    std::vector<std::string> chain{root, step};
    std::set<std::string> seen;
    if (Status cycle = resolver.CheckNoCycle(&chain, &seen); !cycle.ok()) {
      order.refused.emplace(step, std::move(cycle));
      continue;
    }
    resolver.Place(step, &order);
  }
  return order;
}

}  // namespace inferd
