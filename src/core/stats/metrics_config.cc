#include "core/stats/metrics_config.h"

#include <cerrno>
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

}  // namespace

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
  return Status::InvalidArg("--metrics-config: unknown setting '" + setting +
                            "' (known: counter_latencies, summary_latencies, summary_quantiles, "
                            "histogram_latencies)");
}

}  // namespace inferd
