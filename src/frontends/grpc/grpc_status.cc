// Error-code to gRPC-status mapping.
#include "grpc/grpc_status.h"

namespace inferd::grpc_frontend {

grpc::StatusCode GrpcCodeFromErrorCode(INFERD_Error_Code code) {
  switch (code) {
    case INFERD_ERROR_UNKNOWN:
      return grpc::StatusCode::UNKNOWN;
    case INFERD_ERROR_INTERNAL:
      return grpc::StatusCode::INTERNAL;
    case INFERD_ERROR_NOT_FOUND:
      return grpc::StatusCode::NOT_FOUND;
    case INFERD_ERROR_INVALID_ARG:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case INFERD_ERROR_UNAVAILABLE:
      return grpc::StatusCode::UNAVAILABLE;
    case INFERD_ERROR_UNSUPPORTED:
      return grpc::StatusCode::UNIMPLEMENTED;
    case INFERD_ERROR_ALREADY_EXISTS:
      return grpc::StatusCode::ALREADY_EXISTS;
    case INFERD_ERROR_CANCELLED:
      return grpc::StatusCode::CANCELLED;
  }
  return grpc::StatusCode::UNKNOWN;
}

grpc::Status StatusFromBorrowedError(INFERD_Error* error) {
  if (error == nullptr) return grpc::Status::OK;
  const char* message = INFERD_ErrorMessage(error);
  return grpc::Status(GrpcCodeFromErrorCode(INFERD_ErrorCode(error)), message ? message : "");
}

grpc::Status StatusFromServerError(INFERD_Error* error) {
  grpc::Status status = StatusFromBorrowedError(error);
  DiscardServerError(error);
  return status;
}

grpc::Status InvalidArgument(std::string message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::move(message));
}

grpc::Status Unimplemented(std::string message) {
  return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, std::move(message));
}

void DiscardServerError(INFERD_Error* error) {
  if (error != nullptr) INFERD_ErrorDelete(error);
}

}  // namespace inferd::grpc_frontend
