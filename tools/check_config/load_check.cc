#include "load_check.h"

namespace inferd_check {
namespace {

// The error's message; frees it. "" for OK.
std::string Take(INFERD_Error* error) {
  if (error == nullptr) return "";
  std::string message = INFERD_ErrorMessage(error);
  INFERD_ErrorDelete(error);
  return message;
}

}  // namespace

std::map<std::string, std::string> LoadErrors(INFERD_ServerOptions* options,
                                              const std::vector<std::string>& models) {
  std::map<std::string, std::string> errors;
  // The tool's own lines say what failed; the server's log would repeat it.
  std::string setup = Take(INFERD_ServerOptionsSetModelControlMode(
      options, INFERD_MODEL_CONTROL_EXPLICIT));
  if (setup.empty()) setup = Take(INFERD_ServerOptionsSetLogInfo(options, false));
  if (setup.empty()) setup = Take(INFERD_ServerOptionsSetLogWarn(options, false));
  if (setup.empty()) setup = Take(INFERD_ServerOptionsSetLogError(options, false));
  INFERD_Server* server = nullptr;
  if (setup.empty()) setup = Take(INFERD_ServerNew(&server, options));
  INFERD_ServerOptionsDelete(options);
  if (!setup.empty()) {
    errors[""] = setup;
    return errors;
  }
  for (const std::string& model : models) {
    std::string error =
        Take(INFERD_ServerLoadModel(server, model.c_str(), nullptr, nullptr, nullptr, nullptr, 0));
    if (!error.empty()) {
      errors[model] = std::move(error);
      continue;
    }
    Take(INFERD_ServerUnloadModel(server, model.c_str(), true));
  }
  Take(INFERD_ServerStop(server));
  Take(INFERD_ServerDelete(server));
  return errors;
}

}  // namespace inferd_check
