// What inferd tune prints on stderr while it runs: a line when it starts, one
// per point as it loads, one per step of the concurrency sweep (the load
// generator's own progress line is rewritten in place meanwhile), and the
// point's score. Errors print even with --quiet.
#ifndef INFERD_TOOLS_TUNE_PROGRESS_H_
#define INFERD_TOOLS_TUNE_PROGRESS_H_

#include <cstddef>
#include <cstdio>
#include <string>

#include "tune/tune_result.h"

namespace inferd::tune {

class Progress {
 public:
  Progress(std::FILE* out, bool quiet) : out_(out), quiet_(quiet) {}

  void Begin(const TuneResult& run, bool exhaustive);
  // Point `n` (from 1) starts loading; `grid_size` of the grid.
  void PointStart(size_t n, size_t grid_size, bool exhaustive, const Setting& setting);
  void PointLoaded(const PointResult& point);
  void PointFailed(const PointResult& point);
  // The run stops at this point (the error is reported once, at the end).
  void PointStopped();
  void Step(const StepMeasurement& step, double target_ms);
  void PointDone(const PointResult& point, double target_ms);

 private:
  void Print(const std::string& line);

  std::FILE* const out_;
  const bool quiet_;
};

// `value` with `decimals` digits after the point.
std::string FormatFixed(double value, int decimals);

// "1834.2 infer/s at concurrency 32 (p99 21.3 ms)", or why the point has no score.
std::string DescribeScore(const PointResult& point, double target_ms);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_PROGRESS_H_
