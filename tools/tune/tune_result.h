// What a tuning run measured, as the console summary, the JSON file and the
// HTML report show it.
#ifndef INFERD_TOOLS_TUNE_TUNE_RESULT_H_
#define INFERD_TOOLS_TUNE_TUNE_RESULT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "tune/search.h"
#include "tune/search_space.h"
#include "tune/sweep.h"

namespace inferd::tune {

// One setting: its load and its concurrency sweep.
struct PointResult {
  Setting setting;
  std::vector<StepMeasurement> steps;
  Score score;
  size_t best_step = 0;  // the step the score credits (steps.size() when none)
  std::string error;     // why it was not measured (its load failed), "" when measured
  double load_secs = 0;
};

// The run as a whole.
struct TuneResult {
  // What was asked.
  std::string model;
  std::string server;          // http://host:port (and the gRPC endpoint when used)
  std::string mode;            // "coordinate-descent search" or "exhaustive grid"
  double latency_target_ms = 0;
  size_t grid_size = 0;
  Setting original;
  std::string original_config_json;

  // What happened.
  std::vector<PointResult> points;  // in the order measured
  size_t best = 0;                  // index into points; see has_recommendation
  bool has_recommendation = false;  // some point kept the target
  bool interrupted = false;
  bool restored = false;            // the original configuration is loaded again
  std::string restore_note;         // what was left loaded, and why
  double seconds = 0;               // wall time of the run

  const PointResult* recommended() const { return has_recommendation ? &points[best] : nullptr; }
};

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_TUNE_RESULT_H_
