// Custom metrics: the counters, gauges and histograms models report beside
// the server's own on /metrics (Triton's TRITONSERVER_MetricFamily and
// TRITONSERVER_Metric; the Python backend's pb_utils.MetricFamily). Families
// are known by name, metrics by their family and label set; each creation
// hands out a reference of its own, held by an owner (a model version), so
// two instances asking for the same family or metric share one, and an owner
// that goes (the model is unloaded) takes all its references with it. A
// family or metric lives while one reference to it does (a metric's
// reference holds its family too). Thread-safe: one lock, held for a lookup
// and an update, or for rendering the text.
#ifndef INFERD_CORE_STATS_CUSTOM_METRICS_H_
#define INFERD_CORE_STATS_CUSTOM_METRICS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd {

enum class MetricKind { kCounter = 0, kGauge = 1, kHistogram = 2 };

class CustomMetrics {
 public:
  // Label name -> value; the order given does not matter.
  using Labels = std::vector<std::pair<std::string, std::string>>;

  CustomMetrics() = default;
  CustomMetrics(const CustomMetrics&) = delete;
  CustomMetrics& operator=(const CustomMetrics&) = delete;

  // A reference to the family `name` (made if new). INVALID_ARG for a name
  // that is not a Prometheus metric name or that the server uses itself
  // (nv_*, inferd_*), and for a family of that name of another kind. As
  // Triton, a second creation with another description shares the first
  // (whose description stays).
  StatusOr<uint64_t> AddFamily(const void* owner, MetricKind kind, std::string_view name,
                               std::string_view description) EXCLUDES(mu_);
  // A reference to the metric of `family_ref`'s family with `labels` (made if
  // new). Histograms need `buckets` (strictly increasing finite bounds, an
  // empty list leaves only +Inf); counters and gauges refuse them (null). A
  // histogram asked for again keeps its first buckets, as Triton.
  StatusOr<uint64_t> AddMetric(const void* owner, uint64_t family_ref, const Labels& labels,
                               const std::vector<double>* buckets) EXCLUDES(mu_);
  // Drops a family or metric reference; NOT_FOUND when `owner` holds no such.
  Status Remove(const void* owner, uint64_t ref) EXCLUDES(mu_);
  // Drops every reference `owner` holds (its model is unloaded).
  void RemoveOwner(const void* owner) EXCLUDES(mu_);

  // A counter goes up by a non-negative `value`, a gauge by any; histograms
  // refuse (UNSUPPORTED).
  Status Increment(const void* owner, uint64_t metric_ref, double value) EXCLUDES(mu_);
  Status Set(const void* owner, uint64_t metric_ref, double value) EXCLUDES(mu_);  // gauges
  Status Observe(const void* owner, uint64_t metric_ref, double value) EXCLUDES(mu_);  // histograms
  // A counter's or gauge's value (a histogram has none: UNSUPPORTED).
  StatusOr<double> Value(const void* owner, uint64_t metric_ref) const EXCLUDES(mu_);

  // Appends every family that has a metric, as Prometheus text (format
  // 0.0.4): HELP, TYPE, then one sample per metric (histograms: _bucket per
  // bound with le, +Inf, _sum, _count), labels sorted by name.
  void AppendPrometheusText(std::string* out) const EXCLUDES(mu_);
  size_t FamilyCount() const EXCLUDES(mu_);

 private:
  struct Family;
  struct Metric {
    Family* family = nullptr;
    Labels labels;  // sorted by name
    double value = 0;  // counters and gauges
    std::vector<double> bounds;  // histograms: upper bounds, +Inf implied
    std::vector<uint64_t> counts;  // per bound and +Inf, not cumulative
    double sum = 0;
    uint64_t refs = 0;
  };
  struct Family {
    MetricKind kind = MetricKind::kCounter;
    std::string name;
    std::string help;
    std::map<Labels, std::unique_ptr<Metric>> metrics;
    uint64_t refs = 0;  // its own references and its metrics'
  };
  struct Ref {
    const void* owner = nullptr;
    Family* family = nullptr;
    Metric* metric = nullptr;  // null: a family reference
  };

  // The metric `ref` names, held by `owner`; NOT_FOUND otherwise.
  StatusOr<Metric*> FindMetric(const void* owner, uint64_t ref, const char* what) const
      REQUIRES(mu_);
  void Release(const Ref& ref) REQUIRES(mu_);

  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Family>> families_ GUARDED_BY(mu_);  // by name
  std::unordered_map<uint64_t, Ref> refs_ GUARDED_BY(mu_);
  uint64_t next_ref_ GUARDED_BY(mu_) = 1;
};

const char* MetricKindName(MetricKind kind);

}  // namespace inferd

#endif  // INFERD_CORE_STATS_CUSTOM_METRICS_H_
