// The structs behind the opaque C handles INFERD_Error and INFERD_Message, and
// the guard every exported function runs its body in.
#ifndef INFERD_CORE_API_ERROR_H_
#define INFERD_CORE_API_ERROR_H_

#include <exception>
#include <string>

#include "inferd/base/status.h"
#include "inferd/server.h"

struct INFERD_Error {
  INFERD_Error_Code code;
  std::string message;
};

struct INFERD_Message {
  std::string json;
};

namespace inferd {

// A new C error for `status`, or nullptr when it is OK. The caller owns it.
INFERD_Error* ToError(const Status& status);
// Takes ownership of `error` (may be null), frees it and returns it as a Status.
Status TakeError(INFERD_Error* error);

// Runs `body` (returning Status) so that no exception crosses the ABI.
template <typename Body>
INFERD_Error* GuardedCall(Body&& body) noexcept {
  try {
    return ToError(body());
  } catch (const std::exception& e) {
    return ToError(Status::Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    return ToError(Status::Internal("unexpected exception"));
  }
}

// Fails with INVALID_ARG when a required pointer argument is null.
#define INFERD_REQUIRE_ARG(ptr) \
  if ((ptr) == nullptr) return ::inferd::Status::InvalidArg("argument '" #ptr "' is null")

}  // namespace inferd

#endif  // INFERD_CORE_API_ERROR_H_
