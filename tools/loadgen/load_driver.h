// Runs one load step against an InferClient: closed loop (a fixed number of
// requests in flight, each completion sending the next) or open loop
// (requests sent on a schedule at a fixed rate, constant or Poisson, whatever
// the answers do; latency counts from the scheduled time, so a slow server
// shows up as latency rather than as a lower rate). A warm-up comes first; only
// completions inside the measurement window count.
#ifndef INFERD_TOOLS_LOADGEN_LOAD_DRIVER_H_
#define INFERD_TOOLS_LOADGEN_LOAD_DRIVER_H_

#include <cstdint>

#include "loadgen/infer_client.h"
#include "loadgen/latency_stats.h"
#include "loadgen/options.h"

namespace inferd::loadgen {

struct StepPlan {
  bool open_loop = false;
  double value = 1;  // requests in flight (closed loop) or per second (open loop)
  RateDistribution distribution = RateDistribution::kConstant;
  double warmup_secs = 1;
  double duration_secs = 5;
  bool progress = true;  // a progress line on stderr, rewritten in place
  uint64_t seed = 1;     // of the Poisson arrivals
};

struct StepResult {
  StepPlan plan;
  LatencySummary summary;
  size_t connections = 0;  // client connections open at the end
  bool drained = true;     // every request answered within 30 s after the window
};

// Runs `plan` on `client` (prepared) and blocks until the step ends and its
// requests are answered (or 30 s pass).
StepResult RunStep(InferClient& client, const StepPlan& plan);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_LOAD_DRIVER_H_
