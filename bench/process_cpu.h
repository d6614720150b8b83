// The CPU time this process has used, for the in-process bench tools
// (inferd_ort_bench, inferd_torch_bench): user + system seconds, every thread.
#ifndef INFERD_BENCH_PROCESS_CPU_H_
#define INFERD_BENCH_PROCESS_CPU_H_

#include <sys/resource.h>

inline double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

#endif  // INFERD_BENCH_PROCESS_CPU_H_
