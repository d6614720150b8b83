// The progress lines of progress.h.
#include "tune/progress.h"

namespace inferd::tune {

std::string FormatFixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

std::string DescribeScore(const PointResult& point, double target_ms) {
  if (!point.error.empty()) return "not measured: " + point.error;
  if (point.best_step >= point.steps.size()) return "no step completed";
  const StepMeasurement& step = point.steps[point.best_step];
  std::string text = FormatFixed(step.throughput, 1) + " infer/s at concurrency " +
                     std::to_string(step.concurrency) + " (p99 " + FormatFixed(step.p99_ms, 2) + " ms)";
  if (!point.score.feasible) text = "misses the " + FormatFixed(target_ms, 2) + " ms target; best " + text;
  return text;
}

void Progress::Print(const std::string& line) {
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void Progress::Begin(const TuneResult& run, bool exhaustive) {
  if (quiet_) return;
  Print("inferd tune: model " + run.model + " at " + run.server + ", p99 target " +
        FormatFixed(run.latency_target_ms, 2) + " ms, " + run.mode + " over " +
        std::to_string(run.grid_size) + " settings" + (exhaustive ? "" : " (starting from the model's own)"));
}

void Progress::PointStart(size_t n, size_t grid_size, bool exhaustive, const Setting& setting) {
  if (quiet_) return;
  const std::string count = exhaustive ? std::to_string(n) + "/" + std::to_string(grid_size)
                                       : std::to_string(n) + " of at most " + std::to_string(grid_size);
  std::fprintf(out_, "[%s] %s: loading... ", count.c_str(), setting.Describe().c_str());
  std::fflush(out_);
}

void Progress::PointLoaded(const PointResult& point) {
  if (!quiet_) Print("loaded in " + FormatFixed(point.load_secs, 2) + " s");
}

void Progress::PointFailed(const PointResult& point) {
  if (quiet_) Print(point.setting.Describe() + ": " + point.error);
  else Print("failed: " + point.error);
}

void Progress::PointStopped() {
  if (!quiet_) Print("stopped");
}

void Progress::Step(const StepMeasurement& step, double target_ms) {
  if (quiet_) return;
  std::string line = "    concurrency " + std::to_string(step.concurrency) + ": " +
                     FormatFixed(step.throughput, 1) + " infer/s, p50 " + FormatFixed(step.p50_ms, 2) +
                     " ms, p99 " + FormatFixed(step.p99_ms, 2) + " ms";
  if (step.errors > 0) line += ", " + std::to_string(step.errors) + " errors (" + step.first_error + ")";
  else if (step.p99_ms > target_ms) line += " (over the target)";
  Print(line);
}

void Progress::PointDone(const PointResult& point, double target_ms) {
  if (!quiet_ && point.error.empty()) Print("    -> " + DescribeScore(point, target_ms));
}

}  // namespace inferd::tune
