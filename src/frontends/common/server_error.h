// The one place where an error of the in-process server API (INFERD_Error*,
// inferd/server.h) becomes the inferd::Status every step of a frontend
// returns, and back again for the callbacks that answer the server. Both
// frontends convert here, so a code means the same from the core to the wire,
// where each frontend maps a Status to its protocol once. Thread-safe (no
// shared state).
#ifndef INFERD_FRONTENDS_COMMON_SERVER_ERROR_H_
#define INFERD_FRONTENDS_COMMON_SERVER_ERROR_H_

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

// Takes ownership of `error`, frees it and returns its code and message; OK
// when `error` is null.
Status StatusFromServerError(INFERD_Error* error);

// Copies an error the caller does not own (the error a response carries);
// OK when `error` is null.
Status StatusFromBorrowedError(INFERD_Error* error);

// Frees `error` if there is one: for cleanup calls whose failure changes nothing.
void DiscardServerError(INFERD_Error* error);

// A new server API error with the code and message of `status`, owned by the
// caller (for a callback, the server); null when `status` is OK.
INFERD_Error* ServerErrorFromStatus(const Status& status);

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_SERVER_ERROR_H_
