#include "core/config/model_config_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace inferd {
namespace {

namespace pb = google::protobuf;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteMessage(JsonWriter& out, const pb::Message& message);

// Shortest text that reads back as the same value; NaN and infinities as the
// strings protobuf's JSON uses, since JSON numbers cannot hold them.
template <typename Float>
void WriteFloat(JsonWriter& out, Float value) {
  if (std::isnan(value)) {
    out.String("NaN");
  } else if (std::isinf(value)) {
    out.String(value > 0 ? "Infinity" : "-Infinity");
  } else {
    char text[64];
    auto [end, err] = std::to_chars(text, text + sizeof(text), value);
    out.RawValue(text, static_cast<size_t>(end - text), rapidjson::kNumberType);
  }
}

std::string Base64(const std::string& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) {
      chunk |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    }
    if (i + 2 < bytes.size()) {
      chunk |= static_cast<uint8_t>(bytes[i + 2]);
    }
    for (size_t k = 0; k < 4; ++k) {
      text += (i + k <= bytes.size()) ? kDigits[(chunk >> (18 - 6 * k)) & 63] : '=';
    }
  }
  return text;
}

void WriteEnum(JsonWriter& out, const pb::EnumDescriptor* type, int number) {
  if (const pb::EnumValueDescriptor* value = type->FindValueByNumber(number)) {
    out.String(value->name().data(), static_cast<rapidjson::SizeType>(value->name().size()));
  } else {
    out.Int(number);
  }
}

// Element `index` of a repeated field, or the singular field when index < 0.
void WriteValue(JsonWriter& out, const pb::Message& message, const pb::FieldDescriptor* field,
                int index) {
  const pb::Reflection* r = message.GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      out.Int(rep ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      out.Int64(rep ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      out.Uint(rep ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      out.Uint64(rep ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      WriteFloat(out,
                 rep ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      WriteFloat(out,
                 rep ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      out.Bool(rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      WriteEnum(
          out, field->enum_type(),
          rep ? r->GetRepeatedEnumValue(message, field, index) : r->GetEnumValue(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& text = rep ? r->GetRepeatedStringReference(message, field, index, &scratch)
                                    : r->GetStringReference(message, field, &scratch);
      if (field->type() == pb::FieldDescriptor::TYPE_BYTES) {
        const std::string encoded = Base64(text);
        out.String(encoded.data(), static_cast<rapidjson::SizeType>(encoded.size()));
      } else {
        out.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
      }
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      WriteMessage(
          out, rep ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field));
      break;
  }
}

// JSON object keys are strings: map keys are written as text, and sorted
// (numerically for integer keys) so the output does not depend on hashing.
std::string MapKeyText(const pb::Message& entry, const pb::FieldDescriptor* key) {
  const pb::Reflection* r = entry.GetReflection();
  switch (key->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(r->GetInt32(entry, key));
    case pb::FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(r->GetInt64(entry, key));
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(r->GetUInt32(entry, key));
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(r->GetUInt64(entry, key));
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return r->GetBool(entry, key) ? "true" : "false";
    default:
      return r->GetString(entry, key);
  }
}

void WriteMap(JsonWriter& out, const pb::Message& message, const pb::FieldDescriptor* field) {
  const pb::Reflection* r = message.GetReflection();
  const pb::FieldDescriptor* key = field->message_type()->map_key();
  const pb::FieldDescriptor* value = field->message_type()->map_value();
  const bool numeric = key->cpp_type() != pb::FieldDescriptor::CPPTYPE_STRING &&
                       key->cpp_type() != pb::FieldDescriptor::CPPTYPE_BOOL;
  std::vector<std::pair<std::string, const pb::Message*>> entries;
  for (int i = 0; i < r->FieldSize(message, field); ++i) {
    const pb::Message& entry = r->GetRepeatedMessage(message, field, i);
    entries.emplace_back(MapKeyText(entry, key), &entry);
  }
  std::sort(entries.begin(), entries.end(), [numeric](const auto& a, const auto& b) {
    if (!numeric) {
      return a.first < b.first;
    }
    const bool a_neg = a.first.starts_with('-'), b_neg = b.first.starts_with('-');
    if (a_neg != b_neg) {
      return a_neg;
    }
    if (a.first.size() != b.first.size()) {
      return (a.first.size() < b.first.size()) != a_neg;
    }
    return (a.first < b.first) != a_neg;
  });
  out.StartObject();
  for (const auto& [text, entry] : entries) {
    out.Key(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    WriteValue(out, *entry, value, -1);
  }
  out.EndObject();
}

void WriteMessage(JsonWriter& out, const pb::Message& message) {
  const pb::Descriptor* descriptor = message.GetDescriptor();
  const pb::Reflection* r = message.GetReflection();
  out.StartObject();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const pb::FieldDescriptor* field = descriptor->field(i);
    // Sub-messages and oneof members appear only when set; plain proto3
    // scalars and repeated fields always appear.
    if (!field->is_repeated() && field->has_presence() && !r->HasField(message, field)) {
      continue;
    }
    out.Key(field->name().data(), static_cast<rapidjson::SizeType>(field->name().size()));
    if (field->is_map()) {
      WriteMap(out, message, field);
    } else if (field->is_repeated()) {
      out.StartArray();
      for (int j = 0; j < r->FieldSize(message, field); ++j) {
        WriteValue(out, message, field, j);
      }
      out.EndArray();
    } else {
      WriteValue(out, message, field, -1);
    }
  }
  out.EndObject();
}

}  // namespace

std::string ModelConfigToJson(const inference::ModelConfig& config) {
  rapidjson::StringBuffer buffer;
  JsonWriter out(buffer);
  WriteMessage(out, config);
  return std::string(buffer.GetString(), buffer.GetSize());
}

Status ModelConfigFromJson(std::string_view json, inference::ModelConfig* config) {
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  options.case_insensitive_enum_parsing = true;
  const auto status =
      pb::util::JsonStringToMessage(pb::StringPiece(json.data(), json.size()), config, options);
  if (!status.ok()) {
    // The parser's message may go on with a line pointing at the spot; keep
    // the first line.
    std::string message(status.message());
    message = message.substr(0, message.find('\n'));
    return Status::InvalidArg("invalid model configuration JSON: " + message);
  }
  return Status::Ok();
}

}  // namespace inferd
