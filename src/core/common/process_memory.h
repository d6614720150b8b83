// How much memory the server takes and may take: the resident bytes of this
// process and its child processes (the Python backend's stubs), read from
// /proc, and the limit a percentage budget is taken of (the cgroup's memory
// limit, else the machine's physical memory). For the model memory budget
// (--model-memory-budget). Thread-safe.
#ifndef INFERD_CORE_COMMON_PROCESS_MEMORY_H_
#define INFERD_CORE_COMMON_PROCESS_MEMORY_H_

#include <cstdint>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// Resident bytes of process `pid` (VmRSS of /proc/<pid>/statm); 0 when gone.
uint64_t ResidentBytesOf(int pid);

// Resident bytes of this process and of every process descending from it.
// Reads /proc/self/statm and each /proc/<pid>/stat (for the parent pid):
// a few milliseconds with a few hundred processes on the machine.
uint64_t ProcessTreeResidentBytes();

// The memory this process may use: cgroup v2's memory.max, else cgroup v1's
// memory.limit_in_bytes, else the physical memory (sysconf), whichever is
// found first and is not "max"/unlimited.
uint64_t MemoryLimitBytes();

// A --model-memory-budget value: "<bytes>", with an optional K/M/G/Ki/Mi/Gi
// suffix, or "<percent>%" of `limit_bytes` (above 0, at most 100).
// INVALID_ARG naming the value otherwise.
StatusOr<uint64_t> ParseMemoryBudget(std::string_view value, uint64_t limit_bytes);

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_PROCESS_MEMORY_H_
