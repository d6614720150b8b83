// Triton's CPU metrics (--allow-cpu-metrics): system-wide CPU utilization
// from /proc/stat and memory from /proc/meminfo, sampled every
// --metrics-interval-ms by one background thread, so a scrape only reads the
// last sample. The parsing is pure functions; the sampler takes the clock and
// the file reader as seams for tests.
#ifndef INFERD_CORE_STATS_CPU_METRICS_H_
#define INFERD_CORE_STATS_CPU_METRICS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "core/timing/clock.h"
#include "inferd/base/mutex.h"

namespace inferd {

// The aggregate "cpu " line of /proc/stat, in clock ticks.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
};

// Parses the first line of /proc/stat's text; false when it is not the
// aggregate "cpu" line with at least four numbers.
bool ParseProcStat(std::string_view text, CpuTimes* out);

// Bytes of RAM: MemTotal, and MemTotal - MemAvailable as used (Triton's
// definition).
struct MemoryBytes {
  uint64_t total = 0;
  uint64_t used = 0;
};

// Parses /proc/meminfo's text; false without MemTotal and MemAvailable, or
// when MemAvailable exceeds MemTotal.
bool ParseMeminfo(std::string_view text, MemoryBytes* out);

// The busy share of the ticks that passed from `before` to `now` (idle and
// iowait are not busy), in [0, 1]; 0 when no tick passed.
double CpuUtilization(const CpuTimes& now, const CpuTimes& before);

// Returns a /proc file's text, empty when it cannot be read.
using ProcReader = std::function<std::string(const char* path)>;
std::string ReadProcFile(const char* path);

// Samples /proc/stat and /proc/meminfo at construction and then every
// interval on its own thread. Thread-safe.
class CpuMetricsSampler {
 public:
  struct Values {
    double utilization = 0;  // since the previous sample; 0 after the first
    uint64_t memory_total_bytes = 0;
    uint64_t memory_used_bytes = 0;
    uint64_t samples = 0;  // how many were taken
  };

  // `clock` outlives the sampler. `reader` reads the /proc files.
  CpuMetricsSampler(const Clock& clock, uint64_t interval_ns, ProcReader reader = ReadProcFile);
  // Stops and joins the thread.
  ~CpuMetricsSampler();
  CpuMetricsSampler(const CpuMetricsSampler&) = delete;
  CpuMetricsSampler& operator=(const CpuMetricsSampler&) = delete;

  // The last sample.
  Values Read() const EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);
  // Reads the files (no lock held) and stores what they say.
  void Sample() EXCLUDES(mu_);

  // Constant after construction.
  const Clock& clock_;
  const uint64_t interval_ns_;
  const ProcReader reader_;

  mutable Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  Values values_ GUARDED_BY(mu_);
  CpuTimes last_times_ GUARDED_BY(mu_);
  bool have_times_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // started last in the constructor
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_CPU_METRICS_H_
