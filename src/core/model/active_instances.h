// A model version's instances that execute (passive ones never do), indexed
// as its scheduler names them, through which a caller's thread executes on an
// idle one (scheduler/caller_execution.h).
#ifndef INFERD_CORE_MODEL_ACTIVE_INSTANCES_H_
#define INFERD_CORE_MODEL_ACTIVE_INSTANCES_H_

#include <cstddef>
#include <vector>

#include "core/model/model_instance.h"
#include "core/scheduler/caller_execution.h"

namespace inferd {

class ActiveInstances final : public CallerExecutor {
 public:
  void Add(ModelInstance* instance) { instances_.push_back(instance); }
  void Clear() { instances_.clear(); }
  size_t size() const { return instances_.size(); }
  ModelInstance* operator[](size_t index) const { return instances_[index]; }

  bool MayExecuteOnCaller(size_t instance) const override {
    return instances_[instance]->MayExecuteOnCaller();
  }
  void ExecuteOnCaller(size_t instance, std::vector<InferenceRequest*>& batch) override {
    instances_[instance]->ExecuteOnCaller(batch);
  }

 private:
  std::vector<ModelInstance*> instances_;
};

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_ACTIVE_INSTANCES_H_
