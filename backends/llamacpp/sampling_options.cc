#include "sampling_options.h"

#include <algorithm>

#include "rapidjson/document.h"

namespace inferd::llamacpp {
namespace {

// Reads one numeric member as a float; "" or the problem.
std::string FloatField(const rapidjson::Value& object, const char* name, float* out) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull()) return "";
  if (!it->value.IsNumber()) return std::string("'") + name + "' is not a number";
  *out = static_cast<float>(it->value.GetDouble());
  return "";
}

// An integer member (JSON numbers with no fraction); "" or the problem.
std::string IntField(const rapidjson::Value& object, const char* name, int64_t* out,
                     bool* present) {
  auto it = object.FindMember(name);
  *present = false;
  if (it == object.MemberEnd() || it->value.IsNull()) return "";
  if (it->value.IsInt64()) {
    *out = it->value.GetInt64();
  } else if (it->value.IsUint64()) {
    *out = static_cast<int64_t>(it->value.GetUint64() & 0x7fffffffffffffffULL);
  } else {
    return std::string("'") + name + "' is not an integer";
  }
  *present = true;
  return "";
}

std::string StopField(const rapidjson::Value& object, std::vector<std::string>* stop) {
  auto it = object.FindMember("stop");
  if (it == object.MemberEnd() || it->value.IsNull()) return "";
  if (it->value.IsString()) {
    stop->emplace_back(it->value.GetString(), it->value.GetStringLength());
    return "";
  }
  if (!it->value.IsArray()) return "'stop' is neither a string nor a list of strings";
  for (const auto& element : it->value.GetArray()) {
    if (!element.IsString()) return "'stop' holds an element that is not a string";
    if (element.GetStringLength() > 0) stop->emplace_back(element.GetString(), element.GetStringLength());
  }
  return "";
}

std::string IntegerFields(const rapidjson::Value& object, SamplingOptions* out) {
  int64_t value = 0;
  bool present = false;
  if (auto problem = IntField(object, "max_tokens", &value, &present); !problem.empty()) return problem;
  if (present) {
    if (value < 1) return "'max_tokens' is below 1";
    out->max_tokens = static_cast<int>(std::min<int64_t>(value, 1 << 30));
  }
  if (auto problem = IntField(object, "top_k", &value, &present); !problem.empty()) return problem;
  if (present) out->top_k = static_cast<int>(std::max<int64_t>(std::min<int64_t>(value, 1 << 30), 0));
  if (auto problem = IntField(object, "seed", &value, &present); !problem.empty()) return problem;
  if (present) out->seed = static_cast<uint32_t>(value);
  return "";
}

}  // namespace

std::string ParseSamplingJson(std::string_view json, SamplingOptions* out) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return "is not a JSON object";
  for (auto [name, field] : {std::pair{"temperature", &out->temperature}, {"top_p", &out->top_p},
                             {"min_p", &out->min_p}, {"presence_penalty", &out->presence_penalty},
                             {"frequency_penalty", &out->frequency_penalty},
                             {"repetition_penalty", &out->repetition_penalty}}) {
    if (std::string problem = FloatField(doc, name, field); !problem.empty()) return problem;
  }
  if (std::string problem = IntegerFields(doc, out); !problem.empty()) return problem;
  if (std::string problem = StopField(doc, &out->stop); !problem.empty()) return problem;
  if (auto it = doc.FindMember("ignore_eos"); it != doc.MemberEnd() && it->value.IsBool()) {
    out->ignore_eos = it->value.GetBool();
  }
  return "";
}

}  // namespace inferd::llamacpp
