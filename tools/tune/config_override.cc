// Reading, overriding and printing the tuned fields of a configuration
// (config_override.h), on RapidJSON documents.
#include "tune/config_override.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <vector>

namespace inferd::tune {
namespace {

using rapidjson::Value;

// An integer written as a JSON number or (protobuf's JSON mapping of 64-bit
// fields) a string; `fallback` when neither.
int64_t AsInt(const Value& value, int64_t fallback) {
  if (value.IsInt64()) return value.GetInt64();
  if (value.IsString()) return std::strtoll(value.GetString(), nullptr, 10);
  return fallback;
}

// object[name] as an integer; `fallback` when absent.
int64_t IntField(const Value& object, const char* name, int64_t fallback) {
  if (!object.IsObject()) return fallback;
  auto found = object.FindMember(name);
  return found == object.MemberEnd() ? fallback : AsInt(found->value, fallback);
}

bool HasObject(const Value& object, const char* name) {
  auto found = object.FindMember(name);
  return found != object.MemberEnd() && found->value.IsObject();
}

std::string StringField(const Value& object, const char* name) {
  auto found = object.FindMember(name);
  return found != object.MemberEnd() && found->value.IsString() ? found->value.GetString() : "";
}

const Value* InstanceGroups(const Value& config) {
  auto found = config.FindMember("instance_group");
  if (found == config.MemberEnd() || !found->value.IsArray() || found->value.Empty()) return nullptr;
  return &found->value;
}

// Sets object[name] to `value`, adding the member when missing.
void SetInt(Value& object, const char* name, int64_t value, rapidjson::Document::AllocatorType& a) {
  auto found = object.FindMember(name);
  if (found != object.MemberEnd()) found->value.SetInt64(value);
  else object.AddMember(Value(name, a), Value(value), a);
}

// Drops preferred batch sizes above `max_batch_size` (the server refuses them;
// an emptied list is filled in again as the server would fill a missing one).
void TrimPreferred(Value& batcher, int64_t max_batch_size) {
  auto found = batcher.FindMember("preferred_batch_size");
  if (found == batcher.MemberEnd() || !found->value.IsArray()) return;
  Value& list = found->value;
  for (Value* it = list.Begin(); it != list.End();) {
    if (AsInt(*it, 0) > max_batch_size) it = list.Erase(it);
    else ++it;
  }
}

// The preferred sizes worth writing down: those below `max_batch_size` (the
// maximum alone is what an empty list means).
std::vector<int64_t> KeptPreferred(const Value& config, int64_t max_batch_size) {
  std::vector<int64_t> kept;
  auto batcher = config.FindMember("dynamic_batching");
  if (batcher == config.MemberEnd() || !batcher->value.IsObject()) return kept;
  auto found = batcher->value.FindMember("preferred_batch_size");
  if (found == batcher->value.MemberEnd() || !found->value.IsArray()) return kept;
  for (const Value& size : found->value.GetArray()) {
    const int64_t value = AsInt(size, 0);
    if (value > 0 && value < max_batch_size) kept.push_back(value);
  }
  return kept;
}

}  // namespace

std::string ReadConfigFacts(const std::string& model, const std::string& config_json,
                            ConfigFacts* facts) {
  rapidjson::Document config;
  config.Parse(config_json.c_str(), config_json.size());
  if (config.HasParseError() || !config.IsObject()) {
    return "model '" + model + "': the server's configuration is not a JSON object: " +
           config_json.substr(0, 200);
  }
  if (StringField(config, "platform") == "ensemble") {
    return "model '" + model + "' is an ensemble: tune its composing models one by one";
  }
  if (HasObject(config, "sequence_batching")) {
    return "model '" + model + "' uses the sequence batcher: tune handles models with the "
           "default or dynamic batcher";
  }
  const Value* groups = InstanceGroups(config);
  if (groups == nullptr) return "model '" + model + "': its configuration has no instance_group";
  facts->setting.max_batch_size = IntField(config, "max_batch_size", 0);
  facts->batches = facts->setting.max_batch_size > 0;
  facts->dynamic_batching = HasObject(config, "dynamic_batching");
  facts->setting.queue_delay_us =
      facts->dynamic_batching ? IntField(config["dynamic_batching"], "max_queue_delay_microseconds", 0) : 0;
  facts->setting.instances = IntField((*groups)[0], "count", 1);
  return "";
}

std::string OverrideConfig(const std::string& config_json, const Setting& setting,
                           std::string* override_json) {
  rapidjson::Document config;
  config.Parse(config_json.c_str(), config_json.size());
  if (config.HasParseError() || !config.IsObject() || InstanceGroups(config) == nullptr) {
    return "the configuration is not a JSON object with an instance_group";
  }
  auto& a = config.GetAllocator();
  if (IntField(config, "max_batch_size", 0) > 0) {
    SetInt(config, "max_batch_size", setting.max_batch_size, a);
    if (!HasObject(config, "dynamic_batching")) {
      config.RemoveMember("dynamic_batching");
      config.AddMember("dynamic_batching", Value(rapidjson::kObjectType), a);
    }
    Value& batcher = config["dynamic_batching"];
    SetInt(batcher, "max_queue_delay_microseconds", setting.queue_delay_us, a);
    TrimPreferred(batcher, setting.max_batch_size);
  }
  for (Value& group : config["instance_group"].GetArray()) {
    if (group.IsObject()) SetInt(group, "count", setting.instances, a);
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  config.Accept(writer);
  override_json->assign(buffer.GetString(), buffer.GetSize());
  return "";
}

std::string ConfigSnippet(const std::string& config_json, const Setting& setting) {
  rapidjson::Document config;
  config.Parse(config_json.c_str(), config_json.size());
  if (config.HasParseError() || !config.IsObject()) return "";
  std::string text;
  if (setting.max_batch_size > 0) {
    text += "max_batch_size: " + std::to_string(setting.max_batch_size) + "\ndynamic_batching {";
    const std::vector<int64_t> preferred = KeptPreferred(config, setting.max_batch_size);
    if (!preferred.empty()) {
      text += "\n  preferred_batch_size: [";
      for (size_t i = 0; i < preferred.size(); ++i) text += (i ? ", " : " ") + std::to_string(preferred[i]);
      text += " ]\n ";
    }
    text += " max_queue_delay_microseconds: " + std::to_string(setting.queue_delay_us) +
            (preferred.empty() ? " }\n" : "\n}\n");
  }
  text += "instance_group [";
  const Value* groups = InstanceGroups(config);
  for (size_t i = 0; groups != nullptr && i < groups->Size(); ++i) {
    std::string kind = StringField((*groups)[i], "kind");
    text += std::string(i ? "," : "") + " { count: " + std::to_string(setting.instances) +
            (kind.empty() ? "" : ", kind: " + kind) + " }";
  }
  return text + " ]\n";
}

}  // namespace inferd::tune
