#include "config_completion.h"

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace inferd::llamacpp {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

struct TensorSpec {
  const char* name;
  const char* type;
  bool optional;
};

constexpr TensorSpec kInputs[] = {
    {"text_input", "TYPE_STRING", false},
    {"stream", "TYPE_BOOL", true},
    {"sampling_parameters", "TYPE_STRING", true},
    {"exclude_input_in_output", "TYPE_BOOL", true},
    {"return_finish_reason", "TYPE_BOOL", true},
    {"return_num_input_tokens", "TYPE_BOOL", true},
    {"return_num_output_tokens", "TYPE_BOOL", true},
};
constexpr TensorSpec kOutputs[] = {
    {"text_output", "TYPE_STRING", false},
    {"finish_reason", "TYPE_STRING", false},
    {"num_input_tokens", "TYPE_UINT32", false},
    {"num_output_tokens", "TYPE_UINT32", false},
};

bool EmptyArray(const rapidjson::Document& doc, const char* name) {
  auto it = doc.FindMember(name);
  return it == doc.MemberEnd() || !it->value.IsArray() || it->value.Empty();
}

template <size_t N>
void SetTensors(rapidjson::Document& doc, const char* name, const TensorSpec (&specs)[N]) {
  Allocator& a = doc.GetAllocator();
  rapidjson::Value array(rapidjson::kArrayType);
  for (const TensorSpec& spec : specs) {
    rapidjson::Value tensor(rapidjson::kObjectType);
    tensor.AddMember("name", rapidjson::StringRef(spec.name), a);
    tensor.AddMember("data_type", rapidjson::StringRef(spec.type), a);
    rapidjson::Value dims(rapidjson::kArrayType);
    dims.PushBack(1, a);
    tensor.AddMember("dims", dims, a);
    if (spec.optional) tensor.AddMember("optional", true, a);
    array.PushBack(tensor, a);
  }
  doc.RemoveMember(name);
  doc.AddMember(rapidjson::StringRef(name), array, a);
}

// parameters.chat_template = `name` unless the configuration has one. True when added.
bool AddChatTemplate(rapidjson::Document& doc, const std::string& name) {
  if (name.empty()) return false;
  Allocator& a = doc.GetAllocator();
  auto params = doc.FindMember("parameters");
  if (params == doc.MemberEnd() || !params->value.IsObject()) {
    doc.RemoveMember("parameters");
    doc.AddMember("parameters", rapidjson::Value(rapidjson::kObjectType), a);
    params = doc.FindMember("parameters");
  }
  if (params->value.HasMember("chat_template")) return false;
  rapidjson::Value value(rapidjson::kObjectType);
  value.AddMember("string_value", rapidjson::Value(name.c_str(), a), a);
  params->value.AddMember("chat_template", value, a);
  return true;
}

}  // namespace

std::string CompleteConfig(std::string_view config_json, const std::string& chat_template) {
  rapidjson::Document doc;
  doc.Parse(config_json.data(), config_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return "";
  bool changed = AddChatTemplate(doc, chat_template);
  if (EmptyArray(doc, "input") && EmptyArray(doc, "output")) {
    SetTensors(doc, "input", kInputs);
    SetTensors(doc, "output", kOutputs);
    doc.RemoveMember("model_transaction_policy");
    rapidjson::Value policy(rapidjson::kObjectType);
    policy.AddMember("decoupled", true, doc.GetAllocator());
    doc.AddMember("model_transaction_policy", policy, doc.GetAllocator());
    changed = true;
  }
  if (!changed) return "";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

DeclaredOutputs ReadDeclaredOutputs(std::string_view config_json) {
  DeclaredOutputs out;
  rapidjson::Document doc;
  doc.Parse(config_json.data(), config_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return out;
  auto outputs = doc.FindMember("output");
  if (outputs == doc.MemberEnd() || !outputs->value.IsArray()) return out;
  for (const auto& output : outputs->value.GetArray()) {
    auto name = output.FindMember("name");
    if (name == output.MemberEnd() || !name->value.IsString()) continue;
    const std::string_view n(name->value.GetString(), name->value.GetStringLength());
    if (n == "finish_reason") out.finish_reason = true;
    if (n == "num_input_tokens") out.num_input_tokens = true;
    if (n == "num_output_tokens") out.num_output_tokens = true;
  }
  return out;
}

}  // namespace inferd::llamacpp
