// The C ABI of backend_metrics.h: a backend's custom metrics, registered in
// the server's CustomMetrics (stats/) with the model version as their owner.
#include <string>
#include <vector>

#include "core/api/error.h"
#include "core/model/model_version.h"
#include "core/stats/custom_metrics.h"
#include "inferd/backend_metrics.h"

using inferd::CustomMetrics;
using inferd::GuardedCall;
using inferd::MetricKind;
using inferd::ModelVersion;
using inferd::Status;
using inferd::StatusOr;

namespace {

// The registry `model`'s server keeps.
StatusOr<CustomMetrics*> Registry(INFERD_Model* model) {
  if (model == nullptr) return Status::InvalidArg("argument 'model' is null");
  CustomMetrics* metrics = ModelVersion::FromHandle(model)->custom_metrics();
  if (metrics == nullptr) return Status::Unsupported("this server keeps no custom metrics");
  return metrics;
}

// The calls on one metric: `op` runs on the registry, owner and handle.
template <typename Op>
INFERD_Error* OnMetric(INFERD_Model* model, uint64_t metric, Op&& op) {
  return GuardedCall([&] {
    ASSIGN_OR_RETURN(CustomMetrics * metrics, Registry(model));
    return op(*metrics, static_cast<const void*>(ModelVersion::FromHandle(model)), metric);
  });
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_ModelMetricFamilyNew(INFERD_Model* model, INFERD_MetricKind kind,
                                         const char* name, const char* description,
                                         uint64_t* family) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(name);
    INFERD_REQUIRE_ARG(family);
    if (kind != INFERD_METRIC_KIND_COUNTER && kind != INFERD_METRIC_KIND_GAUGE &&
        kind != INFERD_METRIC_KIND_HISTOGRAM) {
      return Status::InvalidArg("unknown metric kind " + std::to_string(static_cast<int>(kind)));
    }
    ASSIGN_OR_RETURN(CustomMetrics * metrics, Registry(model));
    ASSIGN_OR_RETURN(*family, metrics->AddFamily(ModelVersion::FromHandle(model),
                                                 static_cast<MetricKind>(kind), name,
                                                 description != nullptr ? description : ""));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelMetricNew(INFERD_Model* model, uint64_t family,
                                   const char* const* label_names,
                                   const char* const* label_values, uint32_t label_count,
                                   const double* buckets, uint32_t bucket_count,
                                   uint64_t* metric) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(metric);
    if (label_count > 0) {
      INFERD_REQUIRE_ARG(label_names);
      INFERD_REQUIRE_ARG(label_values);
    }
    if (bucket_count > 0) INFERD_REQUIRE_ARG(buckets);
    CustomMetrics::Labels labels;
    labels.reserve(label_count);
    for (uint32_t i = 0; i < label_count; ++i) {
      if (label_names[i] == nullptr || label_values[i] == nullptr) {
        return Status::InvalidArg("label " + std::to_string(i) + " has a null name or value");
      }
      labels.emplace_back(label_names[i], label_values[i]);
    }
    std::vector<double> bounds;
    if (buckets != nullptr) bounds.assign(buckets, buckets + bucket_count);
    ASSIGN_OR_RETURN(CustomMetrics * metrics, Registry(model));
    ASSIGN_OR_RETURN(*metric, metrics->AddMetric(ModelVersion::FromHandle(model), family, labels,
                                                 buckets != nullptr ? &bounds : nullptr));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelMetricDelete(INFERD_Model* model, uint64_t handle) {
  return OnMetric(model, handle, [](CustomMetrics& m, const void* owner, uint64_t h) {
    return m.Remove(owner, h);
  });
}

INFERD_Error* INFERD_ModelMetricIncrement(INFERD_Model* model, uint64_t metric, double value) {
  return OnMetric(model, metric, [value](CustomMetrics& m, const void* owner, uint64_t h) {
    return m.Increment(owner, h, value);
  });
}

INFERD_Error* INFERD_ModelMetricSet(INFERD_Model* model, uint64_t metric, double value) {
  return OnMetric(model, metric, [value](CustomMetrics& m, const void* owner, uint64_t h) {
    return m.Set(owner, h, value);
  });
}

INFERD_Error* INFERD_ModelMetricObserve(INFERD_Model* model, uint64_t metric, double value) {
  return OnMetric(model, metric, [value](CustomMetrics& m, const void* owner, uint64_t h) {
    return m.Observe(owner, h, value);
  });
}

INFERD_Error* INFERD_ModelMetricValue(INFERD_Model* model, uint64_t metric, double* value) {
  return OnMetric(model, metric, [value](CustomMetrics& m, const void* owner, uint64_t h) {
    if (value == nullptr) return Status::InvalidArg("argument 'value' is null");
    StatusOr<double> read = m.Value(owner, h);
    if (read.ok()) *value = *read;
    return read.status();
  });
}

}  // extern "C"
