// Health, metadata, readiness, configuration, repository index and log settings endpoints.
#include "http/endpoints.h"

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "http/base64.h"
#include "http/http_errors.h"

namespace inferd::http {
namespace {

EndpointResponse FromStatus(const Status& status) {
  return EndpointResponse{status.http_status(), ErrorJson(status.message())};
}

// Triton answers health and readiness with 200 or 400 and an empty body.
EndpointResponse FromFlag(INFERD_Error* error, bool flag) {
  if (error != nullptr) return FromStatus(Status::FromServerError(error));
  return EndpointResponse{flag ? 200u : 400u, std::string()};
}

// The JSON of a message the server returned, or its error.
EndpointResponse FromMessage(INFERD_Error* error, INFERD_Message* message) {
  if (error != nullptr) return FromStatus(Status::FromServerError(error));
  const char* base = nullptr;
  size_t size = 0;
  EndpointResponse response;
  if (INFERD_Error* serialize_error = INFERD_MessageSerializeToJson(message, &base, &size)) {
    response = FromStatus(Status::FromServerError(serialize_error));
  } else {
    response.body.assign(base, size);
  }
  DiscardServerError(INFERD_MessageDelete(message));
  return response;
}

EndpointResponse RepositoryIndex(INFERD_Server* server, std::string_view body) {
  uint32_t flags = 0;
  if (body.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    rapidjson::Document request;
    request.Parse(body.data(), body.size());
    if (request.HasParseError() || !request.IsObject()) {
      return FromStatus(Status::InvalidArg("the repository index request must be a JSON object"));
    }
    const auto ready = request.FindMember("ready");
    if (ready != request.MemberEnd()) {
      if (!ready->value.IsBool()) {
        return FromStatus(Status::InvalidArg("'ready' must be a boolean"));
      }
      if (ready->value.GetBool()) flags |= INFERD_INDEX_FLAG_READY;
    }
  }
  INFERD_Message* index = nullptr;
  INFERD_Error* error = INFERD_ServerModelIndex(server, flags, &index);
  return FromMessage(error, index);
}

// Reads a repository request body {"parameters": {...}}; empty is allowed.
Status ParseRepositoryParameters(std::string_view body, rapidjson::Document* doc,
                                 const rapidjson::Value** parameters) {
  *parameters = nullptr;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return Status::Ok();
  doc->Parse(body.data(), body.size());
  if (doc->HasParseError() || !doc->IsObject()) {
    return Status::InvalidArg("the repository request body must be a JSON object");
  }
  auto found = doc->FindMember("parameters");
  if (found == doc->MemberEnd()) return Status::Ok();
  if (!found->value.IsObject()) return Status::InvalidArg("'parameters' must be a JSON object");
  *parameters = &found->value;
  return Status::Ok();
}

EndpointResponse RepositoryLoad(INFERD_Server* server, const std::string& model,
                                std::string_view body) {
  rapidjson::Document doc;
  const rapidjson::Value* parameters = nullptr;
  if (Status s = ParseRepositoryParameters(body, &doc, &parameters); !s.ok()) return FromStatus(s);
  std::string config;
  bool has_config = false;
  std::vector<std::string> paths, contents;
  if (parameters != nullptr) {
    for (const auto& member : parameters->GetObject()) {
      const std::string_view key(member.name.GetString(), member.name.GetStringLength());
      if (key == "config") {
        if (!member.value.IsString()) {
          return FromStatus(Status::InvalidArg("parameter 'config' must be a JSON string"));
        }
        config.assign(member.value.GetString(), member.value.GetStringLength());
        has_config = true;
      } else if (key.rfind("file:", 0) == 0) {
        std::optional<std::string> decoded;
        if (member.value.IsString()) {
          decoded = DecodeBase64({member.value.GetString(), member.value.GetStringLength()});
        }
        if (!decoded) {
          return FromStatus(Status::InvalidArg("parameter '" + std::string(key) +
                                               "' must be base64-encoded file content"));
        }
        paths.emplace_back(key.substr(5));
        contents.push_back(std::move(*decoded));
      }
    }
  }
  std::vector<const char*> path_ptrs;
  std::vector<const void*> content_ptrs;
  std::vector<size_t> sizes;
  for (size_t i = 0; i < paths.size(); ++i) {
    path_ptrs.push_back(paths[i].c_str());
    content_ptrs.push_back(contents[i].data());
    sizes.push_back(contents[i].size());
  }
  INFERD_Error* error = INFERD_ServerLoadModel(
      server, model.c_str(), has_config ? config.c_str() : nullptr, path_ptrs.data(),
      content_ptrs.data(), sizes.data(), static_cast<uint32_t>(paths.size()));
  if (error != nullptr) return FromStatus(Status::FromServerError(error));
  return EndpointResponse{200, std::string()};
}

EndpointResponse RepositoryUnload(INFERD_Server* server, const std::string& model,
                                  std::string_view body) {
  rapidjson::Document doc;
  const rapidjson::Value* parameters = nullptr;
  if (Status s = ParseRepositoryParameters(body, &doc, &parameters); !s.ok()) return FromStatus(s);
  bool unload_dependents = false;
  if (parameters != nullptr) {
    auto found = parameters->FindMember("unload_dependents");
    if (found != parameters->MemberEnd()) {
      if (!found->value.IsBool()) {
        return FromStatus(Status::InvalidArg("parameter 'unload_dependents' must be a boolean"));
      }
      unload_dependents = found->value.GetBool();
    }
  }
  INFERD_Error* error = INFERD_ServerUnloadModel(server, model.c_str(), unload_dependents);
  if (error != nullptr) return FromStatus(Status::FromServerError(error));
  return EndpointResponse{200, std::string()};
}

EndpointResponse UpdateTraceSettings(INFERD_Server* server, const std::string& model,
                                     std::string_view body) {
  // The server API wants a C string; an empty body is an empty update.
  const std::string settings(body);
  INFERD_Message* message = nullptr;
  INFERD_Error* error =
      INFERD_ServerUpdateTraceSettings(server, model.c_str(), settings.c_str(), &message);
  return FromMessage(error, message);
}

}  // namespace

EndpointResponse HandleEndpoint(INFERD_Server* server, const Route& route, std::string_view body) {
  const char* model = route.model.c_str();
  const int64_t version = route.model_version;
  // Each call runs before its out-parameter is read (argument order is unspecified).
  bool flag = false;
  INFERD_Message* message = nullptr;
  INFERD_Error* error = nullptr;
  switch (route.endpoint) {
    case Endpoint::kHealthLive:
      error = INFERD_ServerIsLive(server, &flag);
      return FromFlag(error, flag);
    case Endpoint::kHealthReady:
      error = INFERD_ServerIsReady(server, &flag);
      return FromFlag(error, flag);
    case Endpoint::kServerMetadata:
      error = INFERD_ServerMetadata(server, &message);
      return FromMessage(error, message);
    case Endpoint::kModelMetadata:
      error = INFERD_ServerModelMetadata(server, model, version, &message);
      return FromMessage(error, message);
    case Endpoint::kModelReady:
      error = INFERD_ServerModelIsReady(server, model, version, &flag);
      return FromFlag(error, flag);
    case Endpoint::kModelConfig:
      error = INFERD_ServerModelConfig(server, model, version, &message);
      return FromMessage(error, message);
    case Endpoint::kRepositoryIndex:
      return RepositoryIndex(server, body);
    case Endpoint::kRepositoryLoad:
      return RepositoryLoad(server, route.model, body);
    case Endpoint::kRepositoryUnload:
      return RepositoryUnload(server, route.model, body);
    case Endpoint::kModelStats:
      error = INFERD_ServerModelStatistics(server, model, version, &message);
      return FromMessage(error, message);
    case Endpoint::kLogSettings:
      error = INFERD_ServerLogSettings(server, &message);
      return FromMessage(error, message);
    case Endpoint::kLogSettingsUpdate:
      error = INFERD_ServerUpdateLogSettings(server, body.data(), body.size(), &message);
      return FromMessage(error, message);
    case Endpoint::kMetrics: {
      error = INFERD_ServerMetrics(server, &message);
      EndpointResponse response = FromMessage(error, message);
      if (response.status == 200) response.content_type = kPrometheusContentType;
      return response;
    }
    case Endpoint::kTraceSettingGet:
      error = INFERD_ServerTraceSettings(server, model, &message);
      return FromMessage(error, message);
    case Endpoint::kTraceSettingPost:
      return UpdateTraceSettings(server, route.model, body);
    case Endpoint::kNotSupported:
      return FromStatus(Status::Unsupported(std::string(route.feature) +
                                            " is not available on this server"));
    case Endpoint::kModelInfer:
    case Endpoint::kSharedMemoryStatus:
    case Endpoint::kSharedMemoryRegister:
    case Endpoint::kSharedMemoryUnregister:
      break;
  }
  return FromStatus(Status::Internal("infer and shared memory requests are not handled here"));
}

}  // namespace inferd::http
