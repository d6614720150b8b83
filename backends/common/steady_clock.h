// The monotonic clock in nanoseconds, as INFERD_ModelInstanceReportComputeTimes
// takes it (the server's statistics use the same clock).
#ifndef INFERD_BACKENDS_COMMON_STEADY_CLOCK_H_
#define INFERD_BACKENDS_COMMON_STEADY_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace inferd::backend_common {

inline uint64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_STEADY_CLOCK_H_
