// The struct behind the opaque C handle INFERD_Error (server.h, backend.h) and
// its conversions to and from Status. Low in the core because errors cross the
// backend ABI deep inside it (a backend's execute result) as well as at the
// server ABI's shell.
#ifndef INFERD_CORE_COMMON_C_ERROR_H_
#define INFERD_CORE_COMMON_C_ERROR_H_

#include <string>

#include "inferd/base/status.h"
#include "inferd/server.h"

struct INFERD_Error {
  INFERD_Error_Code code;
  std::string message;
  uint64_t retry_after_ms = 0;  // INFERD_ErrorRetryAfterMs
};

namespace inferd {

// A new C error for `status`, or nullptr when it is OK. The caller owns it.
INFERD_Error* ToError(const Status& status);
// Takes ownership of `error` (may be null), frees it and returns it as a Status.
Status TakeError(INFERD_Error* error);

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_C_ERROR_H_
