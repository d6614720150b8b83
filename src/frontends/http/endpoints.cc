// Health, metadata, readiness, configuration and repository index endpoints.
#include "frontends/http/endpoints.h"

#include <rapidjson/document.h>

#include "frontends/http/http_errors.h"

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
    case Endpoint::kNotSupported:
      return FromStatus(Status::Unsupported(std::string(route.feature) +
                                            " is not supported by inferd yet"));
    case Endpoint::kModelInfer:
      break;
  }
  return FromStatus(Status::Internal("infer requests are not handled here"));
}

}  // namespace inferd::http
