// The end-of-run text of summary.h.
#include "tune/summary.h"

#include <algorithm>
#include <cstdio>

#include "tune/config_override.h"
#include "tune/progress.h"

namespace inferd::tune {
namespace {

std::string Row(const PointResult& point, double target_ms, bool recommended) {
  char line[256];
  if (!point.error.empty() || point.best_step >= point.steps.size()) {
    std::snprintf(line, sizeof(line), "%s %14lld %9lld %9lld   %s", recommended ? "*" : " ",
                  (long long)point.setting.max_batch_size, (long long)point.setting.queue_delay_us,
                  (long long)point.setting.instances, DescribeScore(point, target_ms).c_str());
    return line;
  }
  const StepMeasurement& step = point.steps[point.best_step];
  std::snprintf(line, sizeof(line), "%s %14lld %9lld %9lld %10.1f %9.2f %11lld",
                recommended ? "*" : " ", (long long)point.setting.max_batch_size,
                (long long)point.setting.queue_delay_us, (long long)point.setting.instances,
                step.throughput, step.p99_ms, (long long)step.concurrency);
  return std::string(line) + (point.score.feasible ? "" : "   over the target");
}

}  // namespace

std::vector<size_t> RankPoints(const TuneResult& result) {
  std::vector<size_t> order(result.points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return Better(result.points[a].score, result.points[b].score, 0);
  });
  return order;
}

std::string SummaryText(const TuneResult& result) {
  char head[256];
  std::snprintf(head, sizeof(head), "\n%zu of %zu settings measured (%s%s) in %.0f s; p99 target %.2f ms\n",
                result.points.size(), result.grid_size, result.mode.c_str(),
                result.interrupted ? ", interrupted" : "", result.seconds, result.latency_target_ms);
  std::string text = head;
  text += "  max_batch_size  delay_us instances    infer/s    p99 ms concurrency\n";
  for (size_t i : RankPoints(result)) {
    text += Row(result.points[i], result.latency_target_ms,
                result.has_recommendation && i == result.best) + "\n";
  }
  if (const PointResult* best = result.recommended()) {
    text += "\nrecommended: " + best->setting.Describe() + ": " +
            DescribeScore(*best, result.latency_target_ms) + "\n";
    text += "config.pbtxt (replacing these fields):\n";
    const std::string snippet = ConfigSnippet(result.original_config_json, best->setting);
    for (size_t start = 0; start < snippet.size();) {
      const size_t end = snippet.find('\n', start);
      text += "  " + snippet.substr(start, end - start) + "\n";
      start = end == std::string::npos ? snippet.size() : end + 1;
    }
  } else {
    char line[128];
    std::snprintf(line, sizeof(line), "\nno setting kept p99 within %.2f ms", result.latency_target_ms);
    text += std::string(line) + (result.points.empty() ? "" : " (see the table for the lowest p99)") + "\n";
  }
  return text + result.restore_note + "\n";
}

}  // namespace inferd::tune
