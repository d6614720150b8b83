// Server options of the model memory budget (docs/memory-budget.md): models
// load on their first request and the least recently used idle ones are
// unloaded to stay within a budget. inferd's own, not Triton's. Part of the
// server API (server_options.h's conventions apply); a header of its own so
// that only the callers that set these options see them.
#ifndef INFERD_SERVER_MEMORY_BUDGET_H_
#define INFERD_SERVER_MEMORY_BUDGET_H_

#include "inferd/server_options.h"

#ifdef __cplusplus
extern "C" {
#endif

// --model-memory-budget: models load on their first request and the least
// recently used idle, unpinned ones are unloaded to keep the bytes attributed
// to loaded models within the budget: "<bytes>" (suffixes K, M, G, Ki, Mi, Gi)
// or "<percent>%" of the cgroup's memory limit (else of physical memory).
// Default: no budget. INVALID_ARG for a value that is none of those.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelMemoryBudget(INFERD_ServerOptions* options,
                                                                    const char* budget);
// How long a request waits for its model's on-demand load before UNAVAILABLE
// (--model-load-wait-timeout-ms, 1 to 86400000; default 60000).
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelLoadWaitTimeout(
    INFERD_ServerOptions* options, uint64_t milliseconds);
// A model the memory budget never evicts, loaded at start (--model-memory-pin;
// call once per model).
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddPinnedModel(INFERD_ServerOptions* options,
                                                              const char* model_name);

#ifdef __cplusplus
}
#endif

#endif  // INFERD_SERVER_MEMORY_BUDGET_H_
