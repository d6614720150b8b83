// Where an error of the gRPC frontend meets the wire: every step returns an
// inferd::Status, and a call's status becomes a grpc::Status here, once, as
// the call finishes. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_
#define INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include <string>

#include "inferd/base/status.h"

namespace inferd::grpc_frontend {

// The gRPC code Triton answers with for `code`: NOT_FOUND, INVALID_ARGUMENT,
// UNAVAILABLE, UNIMPLEMENTED (UNSUPPORTED), INTERNAL, ALREADY_EXISTS,
// CANCELLED, UNKNOWN, and RESOURCE_EXHAUSTED (admission control); OK for kOk.
grpc::StatusCode GrpcCodeFromCode(Status::Code code);

// `status` with its gRPC code and the same message.
grpc::Status ToGrpcStatus(const Status& status);

// The trailing metadata a refusal with retry advice (admission control's
// RESOURCE_EXHAUSTED) adds to its call: `retry-after` in whole seconds, as
// HTTP's header, and gRPC's own `grpc-retry-pushback-ms`. Nothing otherwise.
template <typename Context>
void AddRetryAdvice(const Status& status, Context* context) {
  const uint64_t ms = status.retry_after_ms();
  if (ms == 0) return;
  context->AddTrailingMetadata("retry-after", std::to_string((ms + 999) / 1000));
  context->AddTrailingMetadata("grpc-retry-pushback-ms", std::to_string(ms));
}

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_GRPC_STATUS_H_
