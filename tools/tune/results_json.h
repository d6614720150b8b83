// The --json file: the run and every measurement, for scripts and the tests.
//   {"model", "server", "mode", "latency_target_ms", "grid_size", "seconds",
//    "interrupted", "restored", "restore_note",
//    "original": SETTING, "recommended": SETTING or null, "recommended_index",
//    "points": [{SETTING fields, "feasible", "throughput", "p99_ms",
//                "best_concurrency", "load_secs", "error",
//                "steps": [{"concurrency", "throughput", "p50_ms", "p99_ms",
//                           "requests", "errors"}]}]}
// where SETTING is {"max_batch_size", "queue_delay_us", "instances"}.
#ifndef INFERD_TOOLS_TUNE_RESULTS_JSON_H_
#define INFERD_TOOLS_TUNE_RESULTS_JSON_H_

#include <string>

#include "tune/tune_result.h"

namespace inferd::tune {

std::string ResultsJson(const TuneResult& result);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_RESULTS_JSON_H_
