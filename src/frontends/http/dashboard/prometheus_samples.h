// Reads the samples of a Prometheus text exposition (format 0.0.4), as the
// server's metrics (INFERD_ServerMetrics) render them: one sample a line,
// `name{label="value",...} number`, comments and blank lines skipped. Enough
// for the dashboard to take the gauges and histograms it shows from the same
// text /metrics serves. Pure; thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_DASHBOARD_PROMETHEUS_SAMPLES_H_
#define INFERD_FRONTENDS_HTTP_DASHBOARD_PROMETHEUS_SAMPLES_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferd::http {

struct PrometheusSample {
  std::string_view name;
  std::vector<std::pair<std::string_view, std::string>> labels;  // values unescaped
  double value = 0;  // NaN and +Inf/-Inf as Prometheus writes them

  // The value of label `key`; empty when absent.
  std::string_view Label(std::string_view key) const;
};

// Calls `visit` with every sample of `text` whose name `wanted` accepts, in
// order (the sample's views point into `text`). A malformed line is skipped:
// the metrics text is the server's own, and one odd line (a backend's custom
// metric) must not hide the rest.
void ForEachPrometheusSample(std::string_view text,
                             const std::function<bool(std::string_view name)>& wanted,
                             const std::function<void(const PrometheusSample&)>& visit);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_DASHBOARD_PROMETHEUS_SAMPLES_H_
