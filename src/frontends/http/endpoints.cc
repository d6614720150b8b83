// Health, metadata, readiness, configuration, repository index and log settings endpoints.
#include "http/endpoints.h"

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "common/server_error.h"
#include "http/base64.h"

namespace inferd::http {
namespace {

using Answer = StatusOr<EndpointResponse>;

// An answer with no body.
Answer Empty(unsigned status) { return EndpointResponse{status, std::string()}; }

// Triton answers health and readiness with 200 or 400 and an empty body.
Answer FromFlag(INFERD_Error* error, bool flag) {
  RETURN_IF_ERROR(StatusFromServerError(error));
  return Empty(flag ? 200 : 400);
}

// The JSON of a message the server returned, or its error.
Answer FromMessage(INFERD_Error* error, INFERD_Message* message) {
  RETURN_IF_ERROR(StatusFromServerError(error));
  const char* base = nullptr;
  size_t size = 0;
  const Status serialized =
      StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  EndpointResponse response;
  if (serialized.ok()) response.body.assign(base, size);
  DiscardServerError(INFERD_MessageDelete(message));
  if (!serialized.ok()) return serialized;
  return response;
}

Answer RepositoryIndex(INFERD_Server* server, std::string_view body) {
  uint32_t flags = 0;
  if (body.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    rapidjson::Document request;
    request.Parse(body.data(), body.size());
    if (request.HasParseError() || !request.IsObject()) {
      return Status::InvalidArg("the repository index request must be a JSON object");
    }
    const auto ready = request.FindMember("ready");
    if (ready != request.MemberEnd()) {
      if (!ready->value.IsBool()) {
        return Status::InvalidArg("'ready' must be a boolean");
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

Answer RepositoryLoad(INFERD_Server* server, const std::string& model, std::string_view body) {
  rapidjson::Document doc;
  const rapidjson::Value* parameters = nullptr;
  RETURN_IF_ERROR(ParseRepositoryParameters(body, &doc, &parameters));
  std::string config;
  bool has_config = false;
  std::vector<std::string> paths, contents;
  if (parameters != nullptr) {
    for (const auto& member : parameters->GetObject()) {
      const std::string_view key(member.name.GetString(), member.name.GetStringLength());
      if (key == "config") {
        if (!member.value.IsString()) {
          return Status::InvalidArg("parameter 'config' must be a JSON string");
        }
        config.assign(member.value.GetString(), member.value.GetStringLength());
        has_config = true;
      } else if (key.rfind("file:", 0) == 0) {
        std::optional<std::string> decoded;
        if (member.value.IsString()) {
          decoded = DecodeBase64({member.value.GetString(), member.value.GetStringLength()});
        }
        if (!decoded) {
          return Status::InvalidArg("parameter '" + std::string(key) +
                                    "' must be base64-encoded file content");
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
  RETURN_IF_ERROR(StatusFromServerError(INFERD_ServerLoadModel(
      server, model.c_str(), has_config ? config.c_str() : nullptr, path_ptrs.data(),
      content_ptrs.data(), sizes.data(), static_cast<uint32_t>(paths.size()))));
  return Empty(200);
}

Answer RepositoryUnload(INFERD_Server* server, const std::string& model, std::string_view body) {
  rapidjson::Document doc;
  const rapidjson::Value* parameters = nullptr;
  RETURN_IF_ERROR(ParseRepositoryParameters(body, &doc, &parameters));
  bool unload_dependents = false;
  if (parameters != nullptr) {
    auto found = parameters->FindMember("unload_dependents");
    if (found != parameters->MemberEnd()) {
      if (!found->value.IsBool()) {
        return Status::InvalidArg("parameter 'unload_dependents' must be a boolean");
      }
      unload_dependents = found->value.GetBool();
    }
  }
  RETURN_IF_ERROR(
      StatusFromServerError(INFERD_ServerUnloadModel(server, model.c_str(), unload_dependents)));
  return Empty(200);
}

Answer UpdateTraceSettings(INFERD_Server* server, const std::string& model,
                           std::string_view body) {
  // The server API wants a C string; an empty body is an empty update.
  const std::string settings(body);
  INFERD_Message* message = nullptr;
  INFERD_Error* error =
      INFERD_ServerUpdateTraceSettings(server, model.c_str(), settings.c_str(), &message);
  return FromMessage(error, message);
}

// An endpoint HandleEndpoint does not answer.
Status NotHandledHere() {
  return Status::Internal(
      "infer, generate, shared memory and dashboard requests are not handled here");
}

// The health, metadata, configuration and statistics queries.
Answer AnswerQuery(INFERD_Server* server, const Route& route) {
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
    case Endpoint::kModelStats:
      error = INFERD_ServerModelStatistics(server, model, version, &message);
      return FromMessage(error, message);
    default:
      return NotHandledHere();
  }
}

// The log and trace settings, and the metrics.
Answer AnswerSettings(INFERD_Server* server, const Route& route, std::string_view body) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error = nullptr;
  switch (route.endpoint) {
    case Endpoint::kLogSettings:
      error = INFERD_ServerLogSettings(server, &message);
      return FromMessage(error, message);
    case Endpoint::kLogSettingsUpdate:
      error = INFERD_ServerUpdateLogSettings(server, body.data(), body.size(), &message);
      return FromMessage(error, message);
    case Endpoint::kMetrics: {
      error = INFERD_ServerMetrics(server, &message);
      Answer response = FromMessage(error, message);
      if (response.ok()) response->content_type = kPrometheusContentType;
      return response;
    }
    case Endpoint::kTraceSettingGet:
      error = INFERD_ServerTraceSettings(server, route.model.c_str(), &message);
      return FromMessage(error, message);
    case Endpoint::kTraceSettingPost:
      return UpdateTraceSettings(server, route.model, body);
    default:
      return NotHandledHere();
  }
}

}  // namespace

StatusOr<EndpointResponse> HandleEndpoint(INFERD_Server* server, const Route& route,
                                          std::string_view body) {
  switch (route.endpoint) {
    case Endpoint::kHealthLive:
    case Endpoint::kHealthReady:
    case Endpoint::kServerMetadata:
    case Endpoint::kModelMetadata:
    case Endpoint::kModelReady:
    case Endpoint::kModelConfig:
    case Endpoint::kModelStats:
      return AnswerQuery(server, route);
    case Endpoint::kRepositoryIndex:
      return RepositoryIndex(server, body);
    case Endpoint::kRepositoryLoad:
      return RepositoryLoad(server, route.model, body);
    case Endpoint::kRepositoryUnload:
      return RepositoryUnload(server, route.model, body);
    case Endpoint::kLogSettings:
    case Endpoint::kLogSettingsUpdate:
    case Endpoint::kMetrics:
    case Endpoint::kTraceSettingGet:
    case Endpoint::kTraceSettingPost:
      return AnswerSettings(server, route, body);
    case Endpoint::kNotSupported:
      return Status::Unsupported(std::string(route.feature) + " is not available on this server");
    case Endpoint::kModelInfer:
    case Endpoint::kModelGenerate:
    case Endpoint::kModelGenerateStream:
    case Endpoint::kSharedMemoryStatus:
    case Endpoint::kSharedMemoryRegister:
    case Endpoint::kSharedMemoryUnregister:
    case Endpoint::kOpenAiModels:
    case Endpoint::kOpenAiModel:
    case Endpoint::kOpenAiCompletions:
    case Endpoint::kOpenAiChatCompletions:
    case Endpoint::kOpenAiEmbeddings:
    case Endpoint::kDashboardPage:
    case Endpoint::kDashboardData:
    case Endpoint::kDashboardFile:
      break;
  }
  return NotHandledHere();
}

}  // namespace inferd::http
