// The seam between the backend ABI and the wire format: reading a request's
// inputs, outputs and parameters into a RequestView, and turning a parsed
// response block back into an INFERD response. Stateless; thread-safe as far
// as the ABI calls it makes are.
#ifndef INFERD_BACKENDS_PYTHON_BACKEND_IO_H_
#define INFERD_BACKENDS_PYTHON_BACKEND_IO_H_

#include <string>

#include "inferd/backend.h"
#include "inferd/base/status.h"
#include "wire_format.h"

namespace inferd::python {

// Turns an ABI error into a Status (and frees it).
Status FromError(INFERD_Error* error);
// A new ABI error holding `status` (the caller passes it on).
INFERD_Error* ToError(const Status& status);

// Fills `view` from `request` (views into the request: it must outlive them).
Status GatherRequest(INFERD_Request* request, uint64_t handle, RequestView* view);

// Sends `response` through `sender` with `flags` (INFERD_RESPONSE_COMPLETE_FINAL
// or 0). An output the ABI refuses turns the whole response into that error.
Status SendResponse(INFERD_ResponseSender* sender, const ResponseView& response, uint32_t flags);
// Sends an error response with `flags`.
Status SendError(INFERD_ResponseSender* sender, const Status& error, uint32_t flags);
// The same, as a response to `request` (which the caller still owns).
Status SendResponse(INFERD_Request* request, const ResponseView& response, uint32_t flags);
Status SendError(INFERD_Request* request, const Status& error, uint32_t flags);
// Answers a request that never reached the stub with `error` and releases it.
void FailRequest(INFERD_Request* request, const Status& error);

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_BACKEND_IO_H_
