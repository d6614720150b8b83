// C ABI: the model memory budget's server options (server_options.h).
#include <string>
#include <string_view>

#include "core/api/error.h"
#include "core/api/server_options_handle.h"
#include "core/common/process_memory.h"
#include "inferd/server_memory_budget.h"

using inferd::GuardedCall;
using inferd::Status;

extern "C" {

INFERD_Error* INFERD_ServerOptionsSetModelMemoryBudget(INFERD_ServerOptions* options,
                                                      const char* budget) {
  return GuardedCall([&]() -> Status {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(budget);
    const bool percent = std::string_view(budget).ends_with('%');
    ASSIGN_OR_RETURN(uint64_t bytes, inferd::ParseMemoryBudget(
                                         budget, percent ? inferd::MemoryLimitBytes() : 0));
    options->options.model_memory_budget_bytes = bytes;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetModelLoadWaitTimeout(INFERD_ServerOptions* options,
                                                         uint64_t milliseconds) {
  return GuardedCall([&]() -> Status {
    INFERD_REQUIRE_ARG(options);
    if (milliseconds == 0 || milliseconds > 86'400'000) {
      return Status::InvalidArg("--model-load-wait-timeout-ms must be 1 to 86400000, got " +
                                std::to_string(milliseconds));
    }
    options->options.model_load_wait_timeout_ms = milliseconds;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsAddPinnedModel(INFERD_ServerOptions* options,
                                                const char* model_name) {
  return GuardedCall([&]() -> Status {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(model_name);
    if (*model_name == '\0') return Status::InvalidArg("--model-memory-pin: empty model name");
    options->options.pinned_models.push_back(model_name);
    return Status::Ok();
  });
}

}  // extern "C"
