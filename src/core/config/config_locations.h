// Where each field of a config.pbtxt was written: the line and column of every
// field the text set, keyed by the labels the validators name fields with
// ("input 'INPUT0' dims[1]", "dynamic_batching preferred_batch_size[0]"), so
// an error about a field can point at it as file:line:col. Built once per
// parse; immutable afterwards and safe to share between threads.
#ifndef INFERD_CORE_CONFIG_CONFIG_LOCATIONS_H_
#define INFERD_CORE_CONFIG_CONFIG_LOCATIONS_H_

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace inferd {

// 1-based, as editors count.
struct TextPosition {
  int line = 0;
  int column = 0;
};

class ConfigLocations {
 public:
  // `tree` is what the text-format parser recorded while parsing `message`.
  ConfigLocations(const google::protobuf::TextFormat::ParseInfoTree& tree,
                  const google::protobuf::Message& message);

  // Where `field_label` (or, when the text did not set it, its nearest
  // enclosing field) was written; nullopt when none of it was.
  std::optional<TextPosition> Find(std::string_view field_label) const;

 private:
  // Both return the earliest position they recorded.
  std::optional<TextPosition> Record(const google::protobuf::TextFormat::ParseInfoTree& tree,
                                     const google::protobuf::Message& message,
                                     const std::string& prefix);
  std::optional<TextPosition> RecordElement(const google::protobuf::TextFormat::ParseInfoTree& tree,
                     const google::protobuf::Message& message,
                     const google::protobuf::FieldDescriptor* field, int index,
                     const std::string& prefix);

  std::map<std::string, TextPosition, std::less<>> positions_;
};

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_CONFIG_LOCATIONS_H_
