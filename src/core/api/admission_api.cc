// C ABI: admission control's server options (server_options.h).
#include "core/api/error.h"
#include "core/api/server_options_handle.h"
#include "inferd/server_options.h"

using inferd::GuardedCall;
using inferd::Status;

extern "C" {

INFERD_Error* INFERD_ServerOptionsSetAdmission(INFERD_ServerOptions* options, bool enabled,
                                               uint64_t queue_target_ms, uint64_t max_inflight,
                                               uint64_t max_queued) {
  return GuardedCall([&]() -> Status {
    INFERD_REQUIRE_ARG(options);
    options->options.admission = inferd::AdmissionOptions{
        .enabled = enabled || queue_target_ms > 0,
        .queue_target_ms = queue_target_ms,
        .max_inflight = max_inflight,
        .max_queued = max_queued,
    };
    return Status::Ok();
  });
}

}  // extern "C"
