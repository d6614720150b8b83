#include "core/common/c_error.h"

namespace inferd {

INFERD_Error* ToError(const Status& status) {
  if (status.ok()) return nullptr;
  return new INFERD_Error{static_cast<INFERD_Error_Code>(status.code()), status.message(),
                          status.retry_after_ms()};
}

Status TakeError(INFERD_Error* error) {
  if (error == nullptr) return Status::Ok();
  Status status(static_cast<Status::Code>(error->code), std::move(error->message),
                error->retry_after_ms);
  delete error;
  return status;
}

}  // namespace inferd
