// What every backend's entry points repeat: turning exceptions into errors at
// the ABI (no exception may cross it), and handing the server ownership of a
// model's or an instance's state object and taking it back.
#ifndef INFERD_BACKENDS_COMMON_ENTRY_POINTS_H_
#define INFERD_BACKENDS_COMMON_ENTRY_POINTS_H_

#include <exception>
#include <memory>
#include <string>

#include "inferd/backend.h"

namespace inferd::backend_common {

inline INFERD_Error* MakeError(INFERD_Error_Code code, const std::string& message) {
  return INFERD_ErrorNew(code, message.c_str());
}

// A copy of `error` with `prefix` put before its message; `error` stays owned
// by the caller.
inline INFERD_Error* PrefixedError(INFERD_Error* error, const std::string& prefix) {
  return MakeError(INFERD_ErrorCode(error), prefix + INFERD_ErrorMessage(error));
}

// Runs `fn` (returning INFERD_Error*), turning what it throws into an INTERNAL
// error prefixed "<backend> backend: ".
template <typename Fn>
INFERD_Error* GuardedCall(const char* backend, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return MakeError(INFERD_ERROR_INTERNAL, std::string(backend) + " backend: " + e.what());
  } catch (...) {
    return MakeError(INFERD_ERROR_INTERNAL, std::string(backend) + " backend: unknown exception");
  }
}

// Fails unless the server's backend API has the major version this backend was built for.
inline INFERD_Error* CheckBackendApiVersion(const char* backend) {
  uint32_t major = 0, minor = 0;
  if (auto* err = INFERD_BackendApiVersion(&major, &minor)) return err;
  if (major == INFERD_BACKEND_API_VERSION_MAJOR) return nullptr;
  return MakeError(INFERD_ERROR_UNSUPPORTED,
                   std::string(backend) + " backend: built for backend API " +
                       std::to_string(INFERD_BACKEND_API_VERSION_MAJOR) + ".x, the server offers " +
                       std::to_string(major) + "." + std::to_string(minor));
}

// Gives `state` to the model; it stays there until TakeModelState.
template <typename State>
INFERD_Error* GiveModelState(INFERD_Model* model, std::unique_ptr<State> state) {
  if (auto* err = INFERD_ModelSetState(model, state.get())) return err;
  state.release();
  return nullptr;
}

// Deletes the state GiveModelState gave `model` (none: nothing to delete).
template <typename State>
INFERD_Error* DeleteModelState(INFERD_Model* model) {
  void* state = nullptr;
  if (auto* err = INFERD_ModelState(model, &state)) return err;
  delete static_cast<State*>(state);
  return INFERD_ModelSetState(model, nullptr);
}

// The state of the model `instance` belongs to.
template <typename State>
INFERD_Error* ModelStateOf(INFERD_ModelInstance* instance, State** out) {
  INFERD_Model* model = nullptr;
  void* state = nullptr;
  if (auto* err = INFERD_ModelInstanceModel(instance, &model)) return err;
  if (auto* err = INFERD_ModelState(model, &state)) return err;
  *out = static_cast<State*>(state);
  return nullptr;
}

template <typename State>
INFERD_Error* GiveInstanceState(INFERD_ModelInstance* instance, std::unique_ptr<State> state) {
  if (auto* err = INFERD_ModelInstanceSetState(instance, state.get())) return err;
  state.release();
  return nullptr;
}

template <typename State>
INFERD_Error* DeleteInstanceState(INFERD_ModelInstance* instance) {
  void* state = nullptr;
  if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
  delete static_cast<State*>(state);
  return INFERD_ModelInstanceSetState(instance, nullptr);
}

// The instance's state, or an INTERNAL error naming `what` when it has none.
template <typename State>
INFERD_Error* InstanceStateOf(INFERD_ModelInstance* instance, const char* what, State** out) {
  void* state = nullptr;
  if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
  if (state == nullptr) return MakeError(INFERD_ERROR_INTERNAL, what);
  *out = static_cast<State*>(state);
  return nullptr;
}

// The body of an Execute entry point whose instance state answers and
// releases every request itself: `execute(*state)`, so the entry point
// returns an error only when it could touch none of them (no state: `what`).
template <typename State, typename Fn>
INFERD_Error* ExecuteOnInstance(INFERD_ModelInstance* instance, const char* what, Fn&& execute) {
  State* state = nullptr;
  if (auto* err = InstanceStateOf(instance, what, &state)) return err;
  execute(*state);
  return nullptr;
}

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_ENTRY_POINTS_H_
