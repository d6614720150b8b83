#include "core/stats/metrics_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace inferd {
namespace {

Status ParseBool(const std::string& setting, const std::string& value, bool* out) {
  if (value == "true") {
    *out = true;
  } else if (value == "false") {
    *out = false;
  } else {
    return Status::InvalidArg("--metrics-config " + setting + "='" + value +
                              "': expected true or false");
  }
  return Status::Ok();
}

// A number in (0, 1), all of `text`.
bool ParseFraction(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size()) return false;
  if (!(value > 0.0 && value < 1.0)) return false;
  *out = value;
  return true;
}

Status ParseQuantiles(const std::string& value, std::vector<QuantileTarget>* out) {
  std::vector<QuantileTarget> targets;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    const std::string pair = value.substr(start, comma - start);
    const size_t colon = pair.find(':');
    QuantileTarget target{};
    if (colon == std::string::npos || !ParseFraction(pair.substr(0, colon), &target.quantile) ||
        !ParseFraction(pair.substr(colon + 1), &target.error)) {
      return Status::InvalidArg("--metrics-config summary_quantiles='" + value + "': '" + pair +
                                "' is not <quantile>:<error> with both in (0, 1)");
    }
    targets.push_back(target);
    start = comma + 1;
  }
  *out = std::move(targets);
  return Status::Ok();
}

// Strictly increasing positive finite numbers, comma-separated.
Status ParseBuckets(const std::string& value, std::vector<double>* out) {
  std::vector<double> bounds;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    const std::string text = value.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    const double bound = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    if (text.empty() || errno != 0 || end != text.c_str() + text.size() || !(bound > 0) ||
        bound == HUGE_VAL || (!bounds.empty() && bound <= bounds.back())) {
      return Status::InvalidArg("--metrics-config latency_buckets='" + value + "': '" + text +
                                "' is not a positive number of seconds larger than the one "
                                "before it");
    }
    bounds.push_back(bound);
    start = comma + 1;
  }
  *out = std::move(bounds);
  return Status::Ok();
}

Status ParseWindow(const std::string& value, uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long ms = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || errno != 0 || end != value.c_str() + value.size() ||
      ms == 0) {
    return Status::InvalidArg("--metrics-config saturation_window_ms='" + value +
                              "': expected a positive number of milliseconds");
  }
  *out = ms;
  return Status::Ok();
}

}  // namespace

const std::vector<double>& DefaultLatencyBuckets() {
  static const std::vector<double> buckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                              0.005,  0.01,    0.025,  0.05,  0.1,
                                              0.25,   0.5,     1.0,    2.5};
  return buckets;
}

std::vector<QuantileTarget> DefaultQuantiles() {
  return {{0.5, 0.05}, {0.9, 0.01}, {0.95, 0.001}, {0.99, 0.001}, {0.999, 0.001}};
}

Status ApplyMetricsSetting(MetricsConfig* config, const std::string& setting,
                           const std::string& value) {
  if (setting == "counter_latencies") return ParseBool(setting, value, &config->counter_latencies);
  if (setting == "summary_latencies") return ParseBool(setting, value, &config->summary_latencies);
  if (setting == "summary_quantiles") return ParseQuantiles(value, &config->quantiles);
  if (setting == "histogram_latencies") {
    return ParseBool(setting, value, &config->histogram_latencies);
  }
  if (setting == "latency_buckets") return ParseBuckets(value, &config->latency_buckets);
  if (setting == "saturation_window_ms") return ParseWindow(value, &config->saturation_window_ms);
  return Status::InvalidArg("--metrics-config: unknown setting '" + setting +
                            "' (known: counter_latencies, summary_latencies, summary_quantiles, "
                            "histogram_latencies, latency_buckets, saturation_window_ms)");
}

}  // namespace inferd
