// A count and a total duration, updated with relaxed atomics (no lock).
#ifndef INFERD_CORE_STATS_DURATION_STAT_H_
#define INFERD_CORE_STATS_DURATION_STAT_H_

#include <atomic>
#include <cstdint>

namespace inferd {

struct DurationStat {
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> ns{0};
  void Add(uint64_t duration_ns, uint64_t times = 1) {
    count.fetch_add(times, std::memory_order_relaxed);
    ns.fetch_add(duration_ns * times, std::memory_order_relaxed);
  }
  // Release: a reader that loads `count` with acquire also sees the times
  // added before it (ModelStatistics::RecordExecutionTime adds times first).
  void AddCount(uint64_t times) { count.fetch_add(times, std::memory_order_release); }
  void AddTime(uint64_t duration_ns, uint64_t times = 1) {
    ns.fetch_add(duration_ns * times, std::memory_order_relaxed);
  }
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_DURATION_STAT_H_
