// Loading and unloading models through the repository extension.
#include "grpc/repository_handlers.h"

#include <string>
#include <string_view>
#include <vector>

#include "common/server_error.h"

namespace inferd::grpc_frontend {
namespace {

using inference::ModelRepositoryParameter;

constexpr std::string_view kFilePrefix = "file:";

}  // namespace

Status LoadModel(INFERD_Server* server,
                 const inference::RepositoryModelLoadRequest& request) {
  const std::string* config = nullptr;
  std::vector<const char*> paths;
  std::vector<const void*> contents;
  std::vector<size_t> sizes;
  for (const auto& [name, value] : request.parameters()) {
    if (name == "config") {
      if (value.parameter_choice_case() != ModelRepositoryParameter::kStringParam) {
        return Status::InvalidArg(
            "parameter 'config' must be a string (the configuration as JSON)");
      }
      config = &value.string_param();
    } else if (std::string_view(name).substr(0, kFilePrefix.size()) == kFilePrefix) {
      if (value.parameter_choice_case() != ModelRepositoryParameter::kBytesParam) {
        return Status::InvalidArg("parameter '" + name + "' must be bytes (the file's content)");
      }
      // Map keys and values live as long as the request.
      paths.push_back(name.c_str() + kFilePrefix.size());
      contents.push_back(value.bytes_param().data());
      sizes.push_back(value.bytes_param().size());
    }
  }
  return StatusFromServerError(INFERD_ServerLoadModel(
      server, request.model_name().c_str(), config != nullptr ? config->c_str() : nullptr,
      paths.data(), contents.data(), sizes.data(), static_cast<uint32_t>(paths.size())));
}

Status UnloadModel(INFERD_Server* server,
                   const inference::RepositoryModelUnloadRequest& request) {
  bool unload_dependents = false;
  const auto found = request.parameters().find("unload_dependents");
  if (found != request.parameters().end()) {
    if (found->second.parameter_choice_case() != ModelRepositoryParameter::kBoolParam) {
      return Status::InvalidArg("parameter 'unload_dependents' must be a boolean");
    }
    unload_dependents = found->second.bool_param();
  }
  return StatusFromServerError(
      INFERD_ServerUnloadModel(server, request.model_name().c_str(), unload_dependents));
}

}  // namespace inferd::grpc_frontend
