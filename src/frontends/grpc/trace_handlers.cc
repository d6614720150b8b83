#include "grpc/trace_handlers.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/server_error.h"

namespace inferd::grpc_frontend {

std::string TraceUpdateJson(const inference::TraceSettingRequest& request) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (const auto& [name, setting] : request.settings()) {
    writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    if (setting.value().empty()) {
      writer.Null();
      continue;
    }
    writer.StartArray();
    for (const std::string& value : setting.value()) {
      writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
    }
    writer.EndArray();
  }
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

Status TraceSettingsFromJson(const std::string& json,
                             inference::TraceSettingResponse* response) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::Internal("the trace settings are not a JSON object");
  }
  auto& settings = *response->mutable_settings();
  for (const auto& member : doc.GetObject()) {
    auto& values = *settings[member.name.GetString()].mutable_value();
    if (member.value.IsString()) {
      values.Add(std::string(member.value.GetString(), member.value.GetStringLength()));
    } else if (member.value.IsArray()) {
      for (const auto& item : member.value.GetArray()) {
        if (item.IsString()) values.Add(std::string(item.GetString(), item.GetStringLength()));
      }
    }
  }
  return Status::Ok();
}

Status TraceSetting(INFERD_Server* server, const inference::TraceSettingRequest& request,
                    inference::TraceSettingResponse* response) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error = nullptr;
  const char* model = request.model_name().c_str();
  // As Triton: a request without settings only reads them.
  if (request.settings().empty()) {
    error = INFERD_ServerTraceSettings(server, model, &message);
  } else {
    error = INFERD_ServerUpdateTraceSettings(server, model, TraceUpdateJson(request).c_str(),
                                             &message);
  }
  if (error != nullptr) return StatusFromServerError(error);
  const char* base = nullptr;
  size_t size = 0;
  Status status = StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  if (status.ok()) status = TraceSettingsFromJson(std::string(base, size), response);
  DiscardServerError(INFERD_MessageDelete(message));
  return status;
}

}  // namespace inferd::grpc_frontend
