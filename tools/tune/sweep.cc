// The sweep's stopping rule and a setting's score (sweep.h).
#include "tune/sweep.h"

#include <algorithm>

namespace inferd::tune {

bool StepMeasurement::Within(double target_ms) const {
  return requests > 0 && errors == 0 && p99_ms <= target_ms;
}

std::optional<int64_t> NextConcurrency(const SweepRule& rule,
                                       const std::vector<StepMeasurement>& done) {
  if (!rule.fixed.empty()) {
    if (done.size() < rule.fixed.size()) return rule.fixed[done.size()];
    return std::nullopt;
  }
  if (done.empty()) return 1;
  const StepMeasurement& last = done.back();
  // More load only adds latency once the target is missed or requests fail.
  if (!last.Within(rule.latency_target_ms)) return std::nullopt;
  // Saturated: the last two doublings each failed to beat every step before
  // them. One flat step is not enough; a busy machine makes those by itself.
  int flat = 0;
  for (size_t i = done.size(); i-- > 1 && flat < 2;) {
    double best_before = 0;
    for (size_t j = 0; j < i; ++j) best_before = std::max(best_before, done[j].throughput);
    if (done[i].throughput >= best_before * (1 + rule.saturation_gain)) break;
    ++flat;
  }
  if (flat >= 2) return std::nullopt;
  if (last.concurrency >= rule.max_concurrency) return std::nullopt;
  return std::min(last.concurrency * 2, rule.max_concurrency);
}

Score ScoreSteps(const std::vector<StepMeasurement>& steps, double target_ms, size_t* best_step) {
  Score score;
  size_t best = steps.size(), lowest = steps.size();
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepMeasurement& step = steps[i];
    if (step.requests > 0 && step.p99_ms < score.p99_ms) {
      score.p99_ms = step.p99_ms;
      lowest = i;
    }
    if (step.Within(target_ms) && (!score.feasible || step.throughput > score.throughput)) {
      score.feasible = true;
      score.throughput = step.throughput;
      best = i;
    }
  }
  if (best_step != nullptr) *best_step = score.feasible ? best : lowest;
  return score;
}

}  // namespace inferd::tune
