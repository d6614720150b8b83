#include "grpc/log_settings_handler.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>

#include "common/server_error.h"

namespace inferd::grpc_frontend {

using SettingValue = inference::LogSettingsRequest::SettingValue;

std::string LogSettingsUpdateJson(const inference::LogSettingsRequest& request) {
  // Sorted, so the document (and the first error reported) does not depend on
  // the map's iteration order.
  const std::map<std::string, SettingValue> sorted(request.settings().begin(),
                                                   request.settings().end());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  for (const auto& [key, value] : sorted) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    switch (value.parameter_choice_case()) {
      case SettingValue::kBoolParam:
        w.Bool(value.bool_param());
        break;
      case SettingValue::kUint32Param:
        w.Uint(value.uint32_param());
        break;
      case SettingValue::kStringParam:
        w.String(value.string_param().data(),
                 static_cast<rapidjson::SizeType>(value.string_param().size()));
        break;
      case SettingValue::PARAMETER_CHOICE_NOT_SET:
        w.Null();
        break;
    }
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

Status LogSettingsFromJson(std::string_view json, inference::LogSettingsResponse* response) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::Internal("the server's log settings are not a JSON object");
  }
  auto& settings = *response->mutable_settings();
  for (const auto& member : doc.GetObject()) {
    const std::string key(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& value = member.value;
    if (value.IsBool()) {
      settings[key].set_bool_param(value.GetBool());
    } else if (value.IsUint()) {
      settings[key].set_uint32_param(value.GetUint());
    } else if (value.IsString()) {
      settings[key].set_string_param(std::string(value.GetString(), value.GetStringLength()));
    } else {
      return Status::Internal("log setting '" + key + "' has no gRPC representation");
    }
  }
  return Status::Ok();
}

Status LogSettings(INFERD_Server* server, const inference::LogSettingsRequest& request,
                   inference::LogSettingsResponse* response) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error = nullptr;
  if (request.settings().empty()) {
    error = INFERD_ServerLogSettings(server, &message);
  } else {
    const std::string update = LogSettingsUpdateJson(request);
    error = INFERD_ServerUpdateLogSettings(server, update.data(), update.size(), &message);
  }
  if (error != nullptr) return StatusFromServerError(error);
  const char* base = nullptr;
  size_t size = 0;
  Status status = StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  if (status.ok()) status = LogSettingsFromJson(std::string_view(base, size), response);
  DiscardServerError(INFERD_MessageDelete(message));
  return status;
}

}  // namespace inferd::grpc_frontend
