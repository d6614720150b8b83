// The load inferd tune puts on one setting: a closed-loop concurrency sweep.
// By default it doubles the requests in flight from 1 until the p99 passes the
// latency target, the throughput stops growing (two doublings in a row without
// gain: saturated) or the cap is reached; a fixed list (--concurrency 8,32) measures each value instead. The
// setting's Score is the best throughput of a step within the target. Pure
// logic, unit-tested on made-up steps.
#ifndef INFERD_TOOLS_TUNE_SWEEP_H_
#define INFERD_TOOLS_TUNE_SWEEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tune/search.h"

namespace inferd::tune {

// One step of a sweep as measured.
struct StepMeasurement {
  int64_t concurrency = 0;
  double throughput = 0;  // inferences/s (requests/s times rows per request)
  double p50_ms = 0;
  double p99_ms = 0;
  uint64_t requests = 0;
  uint64_t errors = 0;
  std::string first_error;

  // Answered without errors and within `target_ms` at the 99th percentile.
  bool Within(double target_ms) const;
};

struct SweepRule {
  std::vector<int64_t> fixed;      // the concurrencies to measure; empty = doubling
  int64_t max_concurrency = 128;   // doubling stops here
  double latency_target_ms = 100;
  double saturation_gain = 0.05;   // a doubling that gains less over the best before it is flat
};

// The next concurrency to measure after `done`, or nullopt when the sweep is over.
std::optional<int64_t> NextConcurrency(const SweepRule& rule,
                                       const std::vector<StepMeasurement>& done);

// The Score of a setting's steps; *best_step (when not null) is the step it
// credits: the best within the target, else the one with the lowest p99
// (steps.size() when there are none).
Score ScoreSteps(const std::vector<StepMeasurement>& steps, double target_ms, size_t* best_step);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_SWEEP_H_
