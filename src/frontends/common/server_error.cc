// INFERD_Error* <-> inferd::Status.
#include "common/server_error.h"

namespace inferd {
namespace {

// Status::Code repeats INFERD_Error_Code value for value, so a cast converts.
using Code = Status::Code;
static_assert(static_cast<int>(Code::kUnknown) == INFERD_ERROR_UNKNOWN);
static_assert(static_cast<int>(Code::kInternal) == INFERD_ERROR_INTERNAL);
static_assert(static_cast<int>(Code::kNotFound) == INFERD_ERROR_NOT_FOUND);
static_assert(static_cast<int>(Code::kInvalidArg) == INFERD_ERROR_INVALID_ARG);
static_assert(static_cast<int>(Code::kUnavailable) == INFERD_ERROR_UNAVAILABLE);
static_assert(static_cast<int>(Code::kUnsupported) == INFERD_ERROR_UNSUPPORTED);
static_assert(static_cast<int>(Code::kAlreadyExists) == INFERD_ERROR_ALREADY_EXISTS);
static_assert(static_cast<int>(Code::kCancelled) == INFERD_ERROR_CANCELLED);
static_assert(static_cast<int>(Code::kResourceExhausted) == INFERD_ERROR_RESOURCE_EXHAUSTED);

}  // namespace

Status StatusFromBorrowedError(INFERD_Error* error) {
  if (error == nullptr) return Status::Ok();
  const char* message = INFERD_ErrorMessage(error);
  return Status(static_cast<Code>(INFERD_ErrorCode(error)), message ? message : "",
                INFERD_ErrorRetryAfterMs(error));
}

Status StatusFromServerError(INFERD_Error* error) {
  Status status = StatusFromBorrowedError(error);
  DiscardServerError(error);
  return status;
}

void DiscardServerError(INFERD_Error* error) {
  if (error != nullptr) INFERD_ErrorDelete(error);
}

INFERD_Error* ServerErrorFromStatus(const Status& status) {
  if (status.ok()) return nullptr;
  // The retry advice stays behind: a callback's error goes to the client's
  // response, whose code already says what happened.
  return INFERD_ErrorNew(static_cast<INFERD_Error_Code>(status.code()), status.message().c_str());
}

}  // namespace inferd
