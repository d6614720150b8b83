// Where an error of the gRPC frontend meets the wire: every step returns an
// inferd::Status, and a call's status becomes a grpc::Status here, once, as
// the call finishes. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_
#define INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "inferd/base/status.h"

namespace inferd::grpc_frontend {

// The gRPC code Triton answers with for `code`: NOT_FOUND, INVALID_ARGUMENT,
// UNAVAILABLE, UNIMPLEMENTED (UNSUPPORTED), INTERNAL, ALREADY_EXISTS,
// CANCELLED, UNKNOWN; OK for kOk.
grpc::StatusCode GrpcCodeFromCode(Status::Code code);

// `status` with its gRPC code and the same message.
grpc::Status ToGrpcStatus(const Status& status);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_
