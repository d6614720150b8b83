// The one clock the core measures queueing and execution with.
#ifndef INFERD_CORE_COMMON_CLOCK_H_
#define INFERD_CORE_COMMON_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace inferd {

// Monotonic time in nanoseconds.
inline uint64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_CLOCK_H_
