// The shell's helpers: the struct behind the opaque C handle INFERD_Message,
// and the guard every exported function runs its body in (GuardedCall, and
// GuardedRead for accessors). Only api/ includes it.
#ifndef INFERD_CORE_API_ERROR_H_
#define INFERD_CORE_API_ERROR_H_

#include <exception>
#include <string>

#include "core/common/c_error.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

struct INFERD_Message {
  std::string json;
};

namespace inferd {

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

// An accessor's body: checks the handle and the output pointer, then sets
// *out to what `get` reads from the handle.
template <typename Handle, typename Out, typename Get>
INFERD_Error* GuardedRead(Handle* handle, Out* out, Get&& get) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(handle);
    INFERD_REQUIRE_ARG(out);
    *out = get();
    return Status::Ok();
  });
}

}  // namespace inferd

#endif  // INFERD_CORE_API_ERROR_H_
