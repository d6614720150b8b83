// Custom metrics a backend reports for its model, beside the server's own on
// the metrics endpoint (/metrics, Prometheus text): counters, gauges and
// histograms, as Triton's TRITONSERVER_MetricFamily / TRITONSERVER_Metric
// (what the Python backend's pb_utils.MetricFamily runs on).
//
// A family is known by its name, a metric by its family and its labels. Each
// ...New call returns a handle of its own, held by the model: asking twice
// for the same family (same name and kind) or the same metric (same labels)
// gives two handles on one family or metric, so the instances of a model, or
// two models, share it. A family or metric lives while a handle on it does (a
// metric's handle holds its family); ...Delete drops a handle, and every
// handle a model still holds is dropped when the model is unloaded, after its
// finalize. A handle is only good with the model that created it (NOT_FOUND
// otherwise, or once dropped). All calls are thread-safe; the conventions of
// abi_common.h apply. scripts/layers.json says which backends include this.
#ifndef INFERD_BACKEND_METRICS_H_
#define INFERD_BACKEND_METRICS_H_

#include "inferd/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum INFERD_MetricKind_enum {
  INFERD_METRIC_KIND_COUNTER = 0,    // only goes up (increment by a value >= 0)
  INFERD_METRIC_KIND_GAUGE = 1,      // set, or incremented by any value
  INFERD_METRIC_KIND_HISTOGRAM = 2,  // observed values counted in buckets
} INFERD_MetricKind;

// A handle on the family `name` (created if new) of `kind` with the HELP text
// `description`. INVALID_ARG for a name that is not a Prometheus metric name
// ([a-zA-Z_:][a-zA-Z0-9_:]*), one starting with "__", "nv_" or "inferd_"
// (the server's own), or one a family of another kind has. A family that
// exists keeps its first description, as Triton.
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricFamilyNew(INFERD_Model* model,
                                                        INFERD_MetricKind kind,
                                                        const char* name,
                                                        const char* description,
                                                        uint64_t* family);
// A handle on the metric of `family` with `label_count` labels (names:
// Prometheus label names, not "le" in a histogram; values: any UTF-8 text).
// A histogram needs `buckets` (`bucket_count` finite, strictly increasing
// upper bounds; +Inf is implied, so 0 bounds is one bucket); a counter or
// gauge takes none (NULL). A histogram metric that exists keeps its buckets.
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricNew(INFERD_Model* model, uint64_t family,
                                                  const char* const* label_names,
                                                  const char* const* label_values,
                                                  uint32_t label_count, const double* buckets,
                                                  uint32_t bucket_count, uint64_t* metric);
// Drops a family or metric handle.
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricDelete(INFERD_Model* model, uint64_t handle);

// A counter goes up by `value` (INVALID_ARG when negative), a gauge by any
// value; a histogram refuses (UNSUPPORTED).
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricIncrement(INFERD_Model* model, uint64_t metric,
                                                        double value);
// Sets a gauge (others: UNSUPPORTED).
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricSet(INFERD_Model* model, uint64_t metric,
                                                  double value);
// Counts `value` in a histogram's buckets, sum and count (others: UNSUPPORTED).
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricObserve(INFERD_Model* model, uint64_t metric,
                                                      double value);
// A counter's or gauge's value (a histogram: UNSUPPORTED).
INFERD_EXPORT INFERD_Error* INFERD_ModelMetricValue(INFERD_Model* model, uint64_t metric,
                                                    double* value);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_BACKEND_METRICS_H_
