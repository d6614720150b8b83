// The default model of a cloud endpoint, from the repository index.
#include "cloud/default_model.h"

#include <rapidjson/document.h>

#include <set>

#include "common/server_error.h"

namespace inferd::cloud {
namespace {

// The distinct model names of the repository index (one entry per version).
StatusOr<std::set<std::string>> IndexedModels(INFERD_Server* server, bool ready_only) {
  INFERD_Message* index = nullptr;
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_ServerModelIndex(server, ready_only ? INFERD_INDEX_FLAG_READY : 0, &index)));
  const char* base = nullptr;
  size_t size = 0;
  const Status serialized = StatusFromServerError(INFERD_MessageSerializeToJson(index, &base, &size));
  rapidjson::Document json;
  if (serialized.ok()) json.Parse(base, size);
  DiscardServerError(INFERD_MessageDelete(index));
  RETURN_IF_ERROR(serialized);
  if (json.HasParseError() || !json.IsArray()) {
    return Status::Internal("the repository index is not a JSON array");
  }
  std::set<std::string> names;
  for (const auto& entry : json.GetArray()) {
    if (!entry.IsObject()) continue;
    const auto name = entry.FindMember("name");
    if (name != entry.MemberEnd() && name->value.IsString()) {
      names.emplace(name->value.GetString(), name->value.GetStringLength());
    }
  }
  return names;
}

std::string List(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

}  // namespace

StatusOr<std::string> ChooseDefaultModel(INFERD_Server* server, const std::string& configured,
                                         bool ready_only, std::string_view setting) {
  ASSIGN_OR_RETURN(const std::set<std::string> names, IndexedModels(server, ready_only));
  const char* which = ready_only ? "ready " : "";
  if (!configured.empty()) {
    if (names.count(configured) != 0) return configured;
    return Status::InvalidArg("the default model '" + configured + "' (" + std::string(setting) +
                              ") is not among the " + which + "models" +
                              (names.empty() ? std::string(" (there are none)")
                                             : ": " + List(names)));
  }
  if (names.size() == 1) return *names.begin();
  if (names.empty()) {
    return Status::InvalidArg(std::string("the model repository has no ") + which +
                              "model to serve as the default model");
  }
  return Status::InvalidArg("the model repository holds " + std::to_string(names.size()) + " " +
                            which + "models (" + List(names) + "); set " + std::string(setting) +
                            " to the one predict requests should use");
}

}  // namespace inferd::cloud
