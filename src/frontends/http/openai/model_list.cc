// Listing the models of the OpenAI API.
#include "http/openai/model_list.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>

#include "common/server_error.h"
#include "http/openai/model_convention.h"
#include "http/openai/openai_response.h"

namespace inferd::http::openai {
namespace {

Status ReadyModelNames(INFERD_Server* server, std::vector<std::string>* names) {
  INFERD_Message* message = nullptr;
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_ServerModelIndex(server, INFERD_INDEX_FLAG_READY, &message)));
  const char* base = nullptr;
  size_t size = 0;
  Status status = StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  rapidjson::Document index;
  if (status.ok()) index.Parse(base, size);
  DiscardServerError(INFERD_MessageDelete(message));
  RETURN_IF_ERROR(status);
  if (index.HasParseError() || !index.IsArray()) {
    return Status::Internal("the repository index is malformed");
  }
  for (const rapidjson::Value& entry : index.GetArray()) {
    if (!entry.IsObject()) continue;
    const auto name = entry.FindMember("name");
    if (name == entry.MemberEnd() || !name->value.IsString()) continue;
    names->emplace_back(name->value.GetString(), name->value.GetStringLength());
  }
  std::sort(names->begin(), names->end());
  names->erase(std::unique(names->begin(), names->end()), names->end());
  return Status::Ok();
}

}  // namespace

Status ListServableModels(INFERD_Server* server, std::vector<std::string>* models) {
  std::vector<std::string> names;
  RETURN_IF_ERROR(ReadyModelNames(server, &names));
  for (std::string& name : names) {
    ModelConvention convention;
    // A model unloaded since the index was read is simply left out.
    if (!FetchModelInputs(server, name, -1, &convention.inputs).ok()) continue;
    if (CheckConvention(convention, name).ok()) models->push_back(std::move(name));
  }
  return Status::Ok();
}

StatusOr<std::string> ModelsAnswer(INFERD_Server* server, const std::string& model) {
  std::vector<std::string> models;
  RETURN_IF_ERROR(ListServableModels(server, &models));
  rapidjson::StringBuffer json;
  JsonWriter writer(json);
  if (model.empty()) {
    RenderModelList(models, &writer);
  } else {
    if (std::find(models.begin(), models.end(), model) == models.end()) {
      return Status::NotFound("The model '" + model + "' does not exist");
    }
    RenderModel(model, &writer);
  }
  return std::string(json.GetString(), json.GetSize());
}

}  // namespace inferd::http::openai
