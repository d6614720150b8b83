#include "core/config/config_locations.h"

#include <google/protobuf/descriptor.pb.h>

#include <utility>
#include <vector>

namespace inferd {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using ParseInfoTree = google::protobuf::TextFormat::ParseInfoTree;

std::string Joined(const std::string& prefix, const std::string& label) {
  return prefix.empty() ? label : prefix + " " + label;
}

// The element's "name" field (a map entry's string key) when it has a
// non-empty one, else "".
std::string ElementName(const Message& element) {
  const auto* descriptor = element.GetDescriptor();
  const FieldDescriptor* name = descriptor->options().map_entry()
                                    ? descriptor->map_key()
                                    : descriptor->FindFieldByName("name");
  if (name == nullptr || name->is_repeated() || name->type() != FieldDescriptor::TYPE_STRING) {
    return "";
  }
  return element.GetReflection()->GetString(element, name);
}

// The label's words, a quoted name staying one word: "input 'a b' dims[1]"
// -> {"input", "'a b'", "dims[1]"}.
std::vector<std::string_view> Words(std::string_view label) {
  std::vector<std::string_view> words;
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i <= label.size(); ++i) {
    if (i < label.size() && label[i] == '\'') quoted = !quoted;
    if (i == label.size() || (label[i] == ' ' && !quoted)) {
      if (i > start) words.push_back(label.substr(start, i - start));
      start = i + 1;
    }
  }
  return words;
}

// A map entry's value is labelled as the entry ("inputs 'INPUT0' dims"): moves
// *entry and *tree to the value when it is a message.
void SkipToMapValue(const Message** entry, const ParseInfoTree** tree) {
  const FieldDescriptor* value = (*entry)->GetDescriptor()->map_value();
  if (value->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return;
  *tree = (*tree)->GetTreeForNested(value, -1);
  *entry = &(*entry)->GetReflection()->GetMessage(**entry, value);
}

}  // namespace

ConfigLocations::ConfigLocations(const ParseInfoTree& tree, const Message& message) {
  Record(tree, message, "");
}

std::optional<TextPosition> ConfigLocations::Record(const ParseInfoTree& tree,
                                                    const Message& message,
                                                    const std::string& prefix) {
  const auto* descriptor = message.GetDescriptor();
  const auto* reflection = message.GetReflection();
  std::optional<TextPosition> first;
  auto earliest = [&](std::optional<TextPosition> position) {
    if (position && (!first || std::pair(position->line, position->column) <
                                   std::pair(first->line, first->column))) {
      first = position;
    }
  };
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const FieldDescriptor* field = descriptor->field(f);
    if (!field->is_repeated()) {
      earliest(RecordElement(tree, message, field, -1, prefix));
      continue;
    }
    const int size = reflection->FieldSize(message, field);
    for (int i = 0; i < size; ++i) earliest(RecordElement(tree, message, field, i, prefix));
  }
  return first;
}

// One field (index -1) or one element of a repeated field, under every label
// the validators may give it: by index, and by name when it has one. The
// parser records one position per "field: [ ... ]" list, so a message element
// is placed at its own first field, a scalar element not at all (Find falls
// back to the field).
std::optional<TextPosition> ConfigLocations::RecordElement(const ParseInfoTree& tree,
                                                           const Message& message,
                                                           const FieldDescriptor* field,
                                                           int index, const std::string& prefix) {
  const auto where = tree.GetLocation(field, index);
  std::optional<TextPosition> position;
  if (where.line >= 0) {
    position = TextPosition{where.line + 1, where.column + 1};
    positions_.emplace(Joined(prefix, field->name()), *position);  // the first element's
  }
  std::string label = field->name();
  if (index >= 0) label += "[" + std::to_string(index) + "]";
  std::vector<std::string> labels{Joined(prefix, label)};
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    const auto* reflection = message.GetReflection();
    const Message& element = index < 0 ? reflection->GetMessage(message, field)
                                       : reflection->GetRepeatedMessage(message, field, index);
    const std::string name = ElementName(element);
    if (index >= 0 && !name.empty()) {
      labels.push_back(Joined(prefix, field->name() + " '" + name + "'"));
    }
    const ParseInfoTree* inner = tree.GetTreeForNested(field, index);
    const Message* fields = &element;
    if (field->is_map() && inner != nullptr) SkipToMapValue(&fields, &inner);
    std::optional<TextPosition> first;
    for (const std::string& each : labels) {
      if (inner != nullptr) first = Record(*inner, *fields, each);
    }
    if (first && index >= 0) position = first;
  }
  if (position) {
    for (const std::string& each : labels) positions_.emplace(each, *position);
  }
  return position;
}

std::optional<TextPosition> ConfigLocations::Find(std::string_view field_label) const {
  std::vector<std::string_view> words = Words(field_label);
  while (!words.empty()) {
    std::string key;
    for (std::string_view word : words) {
      if (!key.empty()) key += ' ';
      key += word;
    }
    if (auto found = positions_.find(key); found != positions_.end()) return found->second;
    // "dims[5]" not written: try "dims" before the enclosing field.
    const size_t bracket = words.back().find('[');
    if (bracket != std::string_view::npos && bracket > 0) {
      words.back() = words.back().substr(0, bracket);
    } else {
      words.pop_back();
    }
  }
  return std::nullopt;
}

}  // namespace inferd
