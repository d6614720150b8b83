// Status-code to gRPC-status mapping.
#include "grpc/grpc_status.h"

namespace inferd::grpc_frontend {

grpc::StatusCode GrpcCodeFromCode(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return grpc::StatusCode::OK;
    case Status::Code::kUnknown:
      return grpc::StatusCode::UNKNOWN;
    case Status::Code::kInternal:
      return grpc::StatusCode::INTERNAL;
    case Status::Code::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case Status::Code::kInvalidArg:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case Status::Code::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case Status::Code::kUnsupported:
      return grpc::StatusCode::UNIMPLEMENTED;
    case Status::Code::kAlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case Status::Code::kCancelled:
      return grpc::StatusCode::CANCELLED;
    case Status::Code::kResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
  }
  return grpc::StatusCode::UNKNOWN;
}

grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(GrpcCodeFromCode(status.code()), status.message());
}

}  // namespace inferd::grpc_frontend
