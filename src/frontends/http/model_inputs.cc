// A model's inputs from its metadata document.
#include "http/model_inputs.h"

#include <rapidjson/document.h>

#include "common/server_error.h"

namespace inferd::http {
namespace {

Status Malformed(std::string_view what) {
  return Status::Internal("the model metadata is malformed: " + std::string(what));
}

Status ParseInput(const rapidjson::Value& json, ModelInput* input) {
  if (!json.IsObject()) return Malformed("an input is not an object");
  const auto name = json.FindMember("name");
  const auto datatype = json.FindMember("datatype");
  const auto shape = json.FindMember("shape");
  if (name == json.MemberEnd() || !name->value.IsString() || datatype == json.MemberEnd() ||
      !datatype->value.IsString() || shape == json.MemberEnd() || !shape->value.IsArray()) {
    return Malformed("an input lacks its name, datatype or shape");
  }
  input->name.assign(name->value.GetString(), name->value.GetStringLength());
  input->datatype = INFERD_StringToDataType(datatype->value.GetString());
  if (input->datatype == INFERD_TYPE_INVALID) {
    return Malformed("input '" + input->name + "' has an unknown datatype");
  }
  for (const rapidjson::Value& dim : shape->value.GetArray()) {
    if (!dim.IsInt64() || dim.GetInt64() < -1) {
      return Malformed("input '" + input->name + "' has a bad dimension");
    }
    input->shape.push_back(dim.GetInt64());
  }
  return Status::Ok();
}

}  // namespace

Status ParseModelInputs(std::string_view metadata_json, std::vector<ModelInput>* inputs) {
  inputs->clear();
  rapidjson::Document document;
  document.Parse(metadata_json.data(), metadata_json.size());
  if (document.HasParseError() || !document.IsObject()) return Malformed("not a JSON object");
  const auto list = document.FindMember("inputs");
  if (list == document.MemberEnd() || !list->value.IsArray()) return Malformed("no 'inputs' array");
  inputs->resize(list->value.Size());
  for (rapidjson::SizeType i = 0; i < list->value.Size(); ++i) {
    RETURN_IF_ERROR(ParseInput(list->value[i], &(*inputs)[i]));
  }
  return Status::Ok();
}

Status FetchModelInputs(INFERD_Server* server, const std::string& model, int64_t version,
                        std::vector<ModelInput>* inputs) {
  INFERD_Message* message = nullptr;
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_ServerModelMetadata(server, model.c_str(), version, &message)));
  const char* base = nullptr;
  size_t size = 0;
  Status status = StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  if (status.ok()) status = ParseModelInputs(std::string_view(base, size), inputs);
  DiscardServerError(INFERD_MessageDelete(message));
  return status;
}

}  // namespace inferd::http
