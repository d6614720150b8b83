// Model warmup (the configuration's model_warmup samples): before a version
// becomes READY, each sample is executed `count` times on every instance, with
// zero, random or file data (files come from <model>/warmup/). A failing
// sample fails the load with its reason.
#ifndef INFERD_CORE_MODEL_MODEL_WARMUP_H_
#define INFERD_CORE_MODEL_MODEL_WARMUP_H_

#include <memory>

#include "inferd/base/status.h"

namespace inferd {

class ModelInstance;
class ModelVersion;

// Runs every warmup sample of `model` on `instance`, whose thread must not be
// running yet (the sample executes on the calling thread).
Status RunWarmup(const std::shared_ptr<ModelVersion>& model, ModelInstance& instance);

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_MODEL_WARMUP_H_
