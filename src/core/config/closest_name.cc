#include "core/config/closest_name.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "model_config.pb.h"

namespace inferd {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::vector<std::string> FieldNames(const google::protobuf::Descriptor& type) {
  std::vector<std::string> names;
  for (int i = 0; i < type.field_count(); ++i) names.push_back(type.field(i)->name());
  return names;
}

// The value names of every enum a field named `field` takes in the config's
// messages: protobuf names only the field in "unknown enumeration value"
// errors, not the message holding it.
std::vector<std::string> EnumValues(const std::string& field) {
  std::vector<std::string> values;
  const auto* pool = google::protobuf::DescriptorPool::generated_pool();
  const auto* file = pool->FindFileByName(inference::ModelConfig::descriptor()->file()->name());
  std::vector<const google::protobuf::Descriptor*> pending;
  for (int i = 0; i < file->message_type_count(); ++i) pending.push_back(file->message_type(i));
  while (!pending.empty()) {
    const google::protobuf::Descriptor* type = pending.back();
    pending.pop_back();
    for (int i = 0; i < type->nested_type_count(); ++i) pending.push_back(type->nested_type(i));
    for (int i = 0; i < type->field_count(); ++i) {
      const auto* enum_type = type->field(i)->enum_type();
      if (type->field(i)->name() != field || enum_type == nullptr) continue;
      for (int v = 0; v < enum_type->value_count(); ++v) {
        values.push_back(enum_type->value(v)->name());
      }
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance over three rows.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) &&
          Lower(a[i - 2]) == Lower(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = word.size() / 3 + 1;
  for (const std::string& candidate : candidates) {
    const size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string SuggestForParseError(std::string_view parser_message) {
  static const std::regex kNoField(R"re(Message type "([\w.]+)" has no field named "(\w+)")re");
  static const std::regex kNoEnum(R"re(Unknown enumeration value of "(\w+)" for field "(\w+)")re");
  const std::string message(parser_message);
  std::smatch match;
  if (std::regex_search(message, match, kNoField)) {
    // Through ModelConfig's own pool: asking generated_pool() by name alone
    // finds nothing until something has touched the file's descriptors (a
    // process that parsed no configuration yet, as `ctest` runs one test).
    const auto* type =
        inference::ModelConfig::descriptor()->file()->pool()->FindMessageTypeByName(match[1]);
    if (type == nullptr) return "";
    const std::string name = ClosestName(match[2].str(), FieldNames(*type));
    return name.empty() ? "" : "did you mean '" + name + "'?";
  }
  if (std::regex_search(message, match, kNoEnum)) {
    const std::vector<std::string> values = EnumValues(match[2].str());
    const std::string typed = match[1].str();
    // "FP32" for TYPE_FP32, "CPU" for KIND_CPU: the prefix left out.
    for (const std::string& value : values) {
      if (value.size() > typed.size() && value.ends_with("_" + typed)) {
        return "did you mean " + value + "?";
      }
    }
    const std::string value = ClosestName(typed, values);
    return value.empty() ? "" : "did you mean " + value + "?";
  }
  return "";
}

}  // namespace inferd
