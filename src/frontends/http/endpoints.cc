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
  bool flag = false;
  INFERD_Message* message = nullptr;
  switch (route.endpoint) {
    case Endpoint::kHealthLive:
      return FromFlag(INFERD_ServerIsLive(server, &flag), flag);
    case Endpoint::kHealthReady:
      return FromFlag(INFERD_ServerIsReady(server, &flag), flag);
    case Endpoint::kServerMetadata:
      return FromMessage(INFERD_ServerMetadata(server, &message), message);
    case Endpoint::kModelMetadata:
      return FromMessage(INFERD_ServerModelMetadata(server, model, version, &message), message);
    case Endpoint::kModelReady:
      return FromFlag(INFERD_ServerModelIsReady(server, model, version, &flag), flag);
    case Endpoint::kModelConfig:
      return FromMessage(INFERD_ServerModelConfig(server, model, version, &message), message);
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
