// Runs a tuning session against a live server: for each point the search
// asks for, loads the model with that setting, checks the server took it,
// sweeps the concurrency with the load generator and scores the point; at
// the end loads the original configuration again (or the recommended one with
// --keep-best). An interrupt (SIGINT) stops after the current step and still
// restores. Not thread-safe.
#ifndef INFERD_TOOLS_TUNE_TUNER_H_
#define INFERD_TOOLS_TUNE_TUNER_H_

#include <atomic>
#include <string>

#include "loadgen/infer_client.h"
#include "tune/config_override.h"
#include "tune/model_control.h"
#include "tune/progress.h"
#include "tune/tune_options.h"
#include "tune/tune_result.h"

namespace inferd::tune {

class Tuner {
 public:
  // `client` has its request prepared; `stop` is set by the interrupt handler.
  Tuner(const TuneOptions& options, ModelControl& control, loadgen::InferClient& client,
        const std::atomic<bool>& stop, Progress& progress);

  // Searches `space` (a grid with --exhaustive) starting from the model's own
  // setting, then restores. A fatal load error ends the search; it is in
  // *fatal_error (else ""), and whatever was measured before is in the result.
  TuneResult Run(const ConfigFacts& facts, const std::string& config_json, const SearchSpace& space,
                 std::string* fatal_error);

 private:
  // Loads and measures one point into result_.points; nullopt to stop.
  std::optional<Score> Measure(const Setting& setting);
  // Whether the server now serves `setting`: "" or why not.
  std::string CheckApplied(const Setting& setting);
  // The concurrency sweep of a loaded point.
  void Sweep(PointResult* point);
  // Loads the original configuration (or the recommendation) again.
  void Restore();

  const TuneOptions& options_;
  ModelControl& control_;
  loadgen::InferClient& client_;
  const std::atomic<bool>& stop_;
  Progress& progress_;

  ConfigFacts facts_;
  std::string config_json_;  // the original configuration
  TuneResult result_;
  std::string fatal_error_;
  bool changed_ = false;  // some load was accepted: there is something to restore
};

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_TUNER_H_
