// Errors of the gRPC frontend: the INFERD_Error_Code -> gRPC status code table
// and conversions from server API errors to grpc::Status, the one error type
// every step of this frontend returns. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_
#define INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include <string>

#include "inferd/server.h"

namespace inferd::grpc_frontend {

// The gRPC code Triton answers with for an error of `code`: NOT_FOUND,
// INVALID_ARGUMENT, UNAVAILABLE, UNIMPLEMENTED (UNSUPPORTED), INTERNAL,
// ALREADY_EXISTS, CANCELLED, UNKNOWN.
grpc::StatusCode GrpcCodeFromErrorCode(INFERD_Error_Code code);

// Converts and frees a server API error; OK when `error` is null.
grpc::Status StatusFromServerError(INFERD_Error* error);

// Converts an error the caller does not own (a response's error); OK when null.
grpc::Status StatusFromBorrowedError(INFERD_Error* error);

// INVALID_ARGUMENT with `message`.
grpc::Status InvalidArgument(std::string message);

// UNIMPLEMENTED with `message`.
grpc::Status Unimplemented(std::string message);

// Frees `error` if there is one: for cleanup calls whose failure changes nothing.
void DiscardServerError(INFERD_Error* error);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_
