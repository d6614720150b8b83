#include "core/stats/custom_metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace inferd {
namespace {

bool NameChar(char c, bool first, bool colon_ok) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  const bool digit = c >= '0' && c <= '9';
  return alpha || (!first && digit) || (colon_ok && c == ':');
}

// Prometheus' rules: [a-zA-Z_:][a-zA-Z0-9_:]* for metric names,
// [a-zA-Z_][a-zA-Z0-9_]* for label names; "__" starts reserved names.
bool ValidName(std::string_view name, bool metric) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!NameChar(name[i], i == 0, metric)) return false;
  }
  return true;
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

Status CheckFamily(std::string_view name) {
  if (!ValidName(name, true)) {
    return Status::InvalidArg("metric family name " + Quoted(name) +
                              " is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*, "
                              "not starting with '__')");
  }
  if (name.starts_with("nv_") || name.starts_with("inferd_")) {
    return Status::InvalidArg("metric family name " + Quoted(name) +
                              ": names starting with 'nv_' or 'inferd_' are the server's own");
  }
  return Status::Ok();
}

Status CheckLabels(const CustomMetrics::Labels& sorted, MetricKind kind, std::string_view family) {
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::string& name = sorted[i].first;
    if (!ValidName(name, false)) {
      return Status::InvalidArg("metric family " + Quoted(family) + ": label name " +
                                Quoted(name) +
                                " is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not "
                                "starting with '__')");
    }
    if (kind == MetricKind::kHistogram && name == "le") {
      return Status::InvalidArg("histogram family " + Quoted(family) +
                                ": the label 'le' is the histogram's own (its bucket bounds)");
    }
    if (i > 0 && sorted[i - 1].first == name) {
      return Status::InvalidArg("metric family " + Quoted(family) + ": label " + Quoted(name) +
                                " is given twice");
    }
  }
  return Status::Ok();
}

Status CheckBuckets(const std::vector<double>* buckets, MetricKind kind, std::string_view family) {
  if (kind != MetricKind::kHistogram) {
    if (buckets == nullptr) return Status::Ok();
    return Status::InvalidArg(std::string(MetricKindName(kind)) + " family " + Quoted(family) +
                              " takes no buckets (only histograms have them)");
  }
  if (buckets == nullptr) {
    return Status::InvalidArg("histogram family " + Quoted(family) +
                              ": a histogram metric needs buckets (its upper bounds)");
  }
  for (size_t i = 0; i < buckets->size(); ++i) {
    const double b = (*buckets)[i];
    if (!std::isfinite(b) || (i > 0 && b <= (*buckets)[i - 1])) {
      return Status::InvalidArg("histogram family " + Quoted(family) +
                                ": bucket bounds must be finite and strictly increasing (bound " +
                                std::to_string(i) + " breaks that)");
    }
  }
  return Status::Ok();
}

// A sample value or bound as Prometheus parses it: the shortest text that
// reads back as the same double.
std::string Number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}

void AppendEscaped(std::string* out, std::string_view text, bool quotes) {
  for (char c : text) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\n') {
      *out += "\\n";
    } else if (quotes && c == '"') {
      *out += "\\\"";
    } else {
      *out += c;
    }
  }
}

// {a="x",b="y"} plus `le` when given; nothing for no labels.
std::string LabelText(const CustomMetrics::Labels& labels, const std::string* le) {
  if (labels.empty() && le == nullptr) return "";
  std::string text = "{";
  for (const auto& [name, value] : labels) {
    if (text.size() > 1) text += ',';
    text += name + "=\"";
    AppendEscaped(&text, value, true);
    text += '"';
  }
  if (le != nullptr) text += std::string(text.size() > 1 ? "," : "") + "le=\"" + *le + "\"";
  return text + "}";
}

}  // namespace

const char* MetricKindName(MetricKind kind) {
  switch (kind) {
    case MetricKind::kCounter: return "counter";
    case MetricKind::kGauge: return "gauge";
    case MetricKind::kHistogram: return "histogram";
  }
  return "unknown";
}

StatusOr<uint64_t> CustomMetrics::AddFamily(const void* owner, MetricKind kind,
                                            std::string_view name, std::string_view description) {
  RETURN_IF_ERROR(CheckFamily(name));
  MutexLock lock(&mu_);
  auto it = families_.find(std::string(name));
  if (it != families_.end() && it->second->kind != kind) {
    return Status::InvalidArg("metric family " + Quoted(name) + " already exists as a " +
                              MetricKindName(it->second->kind) + ", not a " +
                              MetricKindName(kind));
  }
  if (it == families_.end()) {
    auto family = std::make_unique<Family>();
    family->kind = kind;
    family->name = std::string(name);
    family->help = std::string(description);
    it = families_.emplace(family->name, std::move(family)).first;
  }
  ++it->second->refs;
  const uint64_t ref = next_ref_++;
  refs_[ref] = Ref{owner, it->second.get(), nullptr};
  return ref;
}

StatusOr<uint64_t> CustomMetrics::AddMetric(const void* owner, uint64_t family_ref,
                                            const Labels& labels,
                                            const std::vector<double>* buckets) {
  Labels sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  MutexLock lock(&mu_);
  auto found = refs_.find(family_ref);
  if (found == refs_.end() || found->second.owner != owner || found->second.metric != nullptr) {
    return Status::NotFound("no metric family with handle " + std::to_string(family_ref) +
                            " (was it deleted, or its model unloaded?)");
  }
  Family* family = found->second.family;
  RETURN_IF_ERROR(CheckLabels(sorted, family->kind, family->name));
  RETURN_IF_ERROR(CheckBuckets(buckets, family->kind, family->name));
  std::unique_ptr<Metric>& slot = family->metrics[sorted];
  if (slot == nullptr) {
    slot = std::make_unique<Metric>();
    slot->family = family;
    slot->labels = std::move(sorted);
    if (buckets != nullptr) {
      slot->bounds = *buckets;
      slot->counts.assign(buckets->size() + 1, 0);
    }
  }
  ++slot->refs;
  ++family->refs;
  const uint64_t ref = next_ref_++;
  refs_[ref] = Ref{owner, family, slot.get()};
  return ref;
}

void CustomMetrics::Release(const Ref& ref) {
  // Keys copied: each names a member of the object its erase destroys.
  Family* family = ref.family;
  if (ref.metric != nullptr && --ref.metric->refs == 0) {
    const Labels labels = ref.metric->labels;
    family->metrics.erase(labels);
  }
  if (--family->refs == 0) {
    const std::string name = family->name;
    families_.erase(name);
  }
}

Status CustomMetrics::Remove(const void* owner, uint64_t ref) {
  MutexLock lock(&mu_);
  auto it = refs_.find(ref);
  if (it == refs_.end() || it->second.owner != owner) {
    return Status::NotFound("no custom metric or family with handle " + std::to_string(ref));
  }
  Release(it->second);
  refs_.erase(it);
  return Status::Ok();
}

void CustomMetrics::RemoveOwner(const void* owner) {
  MutexLock lock(&mu_);
  // Metrics first: a family goes with its last reference, its metrics' too.
  for (bool metrics : {true, false}) {
    for (auto it = refs_.begin(); it != refs_.end();) {
      if (it->second.owner == owner && (it->second.metric != nullptr) == metrics) {
        Release(it->second);
        it = refs_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

StatusOr<CustomMetrics::Metric*> CustomMetrics::FindMetric(const void* owner, uint64_t ref,
                                                           const char* what) const {
  auto it = refs_.find(ref);
  if (it == refs_.end() || it->second.owner != owner || it->second.metric == nullptr) {
    return Status::NotFound(std::string("cannot ") + what + ": no metric with handle " +
                            std::to_string(ref) + " (was it deleted, or its model unloaded?)");
  }
  return it->second.metric;
}

Status CustomMetrics::Increment(const void* owner, uint64_t metric_ref, double value) {
  MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Metric * metric, FindMetric(owner, metric_ref, "increment"));
  const Family& family = *metric->family;
  if (family.kind == MetricKind::kHistogram) {
    return Status::Unsupported("histogram " + Quoted(family.name) +
                               " cannot be incremented; observe() a value instead");
  }
  if (family.kind == MetricKind::kCounter && !(value >= 0)) {
    return Status::InvalidArg("counter " + Quoted(family.name) +
                              " can only be incremented by a non-negative value, not " +
                              Number(value));
  }
  metric->value += value;
  return Status::Ok();
}

Status CustomMetrics::Set(const void* owner, uint64_t metric_ref, double value) {
  MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Metric * metric, FindMetric(owner, metric_ref, "set"));
  if (metric->family->kind != MetricKind::kGauge) {
    return Status::Unsupported(std::string(MetricKindName(metric->family->kind)) + " " +
                               Quoted(metric->family->name) +
                               " cannot be set; only a gauge can");
  }
  metric->value = value;
  return Status::Ok();
}

Status CustomMetrics::Observe(const void* owner, uint64_t metric_ref, double value) {
  MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Metric * metric, FindMetric(owner, metric_ref, "observe"));
  if (metric->family->kind != MetricKind::kHistogram) {
    return Status::Unsupported(std::string(MetricKindName(metric->family->kind)) + " " +
                               Quoted(metric->family->name) +
                               " cannot observe a value; only a histogram can");
  }
  // The first bucket whose upper bound holds the value (le: less or equal).
  const auto at = std::lower_bound(metric->bounds.begin(), metric->bounds.end(), value);
  ++metric->counts[at - metric->bounds.begin()];
  metric->sum += value;
  return Status::Ok();
}

StatusOr<double> CustomMetrics::Value(const void* owner, uint64_t metric_ref) const {
  MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Metric * metric, FindMetric(owner, metric_ref, "read the value"));
  if (metric->family->kind == MetricKind::kHistogram) {
    return Status::Unsupported("histogram " + Quoted(metric->family->name) +
                               " has no single value (its buckets, sum and count are on "
                               "/metrics)");
  }
  return metric->value;
}

void CustomMetrics::AppendPrometheusText(std::string* out) const {
  MutexLock lock(&mu_);
  for (const auto& [name, family] : families_) {
    if (family->metrics.empty()) continue;
    *out += "# HELP " + name + " ";
    AppendEscaped(out, family->help, false);
    *out += "\n# TYPE " + name + " " + MetricKindName(family->kind) + "\n";
    for (const auto& [labels, metric] : family->metrics) {
      if (family->kind != MetricKind::kHistogram) {
        *out += name + LabelText(labels, nullptr) + " " + Number(metric->value) + "\n";
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < metric->counts.size(); ++i) {
        cumulative += metric->counts[i];
        const std::string le = i < metric->bounds.size() ? Number(metric->bounds[i]) : "+Inf";
        *out += name + "_bucket" + LabelText(labels, &le) + " " + std::to_string(cumulative) +
                "\n";
      }
      *out += name + "_sum" + LabelText(labels, nullptr) + " " + Number(metric->sum) + "\n";
      *out += name + "_count" + LabelText(labels, nullptr) + " " + std::to_string(cumulative) +
              "\n";
    }
  }
}

size_t CustomMetrics::FamilyCount() const {
  MutexLock lock(&mu_);
  return families_.size();
}

}  // namespace inferd
