#include "core/server/metadata_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/common/datatype.h"

namespace inferd {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

template <typename Tensor>
void WriteTensors(JsonWriter& w, const inference::ModelConfig& config,
                  const google::protobuf::RepeatedPtrField<Tensor>& tensors) {
  w.StartArray();
  for (const Tensor& tensor : tensors) {
    w.StartObject();
    w.Key("name");
    WriteString(w, tensor.name());
    w.Key("datatype");
    WriteString(w, DataTypeName(FromConfigDataType(tensor.data_type())));
    w.Key("shape");
    w.StartArray();
    if (config.max_batch_size() > 0) w.Int64(-1);
    for (int64_t dim : tensor.dims()) w.Int64(dim);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string ServerMetadataJson(const std::string& name, const std::string& version,
                               const std::vector<std::string>& extensions) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("name");
  WriteString(w, name);
  w.Key("version");
  WriteString(w, version);
  w.Key("extensions");
  w.StartArray();
  for (const std::string& extension : extensions) WriteString(w, extension);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string ModelMetadataJson(const inference::ModelConfig& config,
                              const std::vector<int64_t>& versions) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("name");
  WriteString(w, config.name());
  w.Key("versions");
  w.StartArray();
  for (int64_t version : versions) WriteString(w, std::to_string(version));
  w.EndArray();
  w.Key("platform");
  WriteString(w, config.platform().empty() ? config.backend() : config.platform());
  w.Key("inputs");
  WriteTensors(w, config, config.input());
  w.Key("outputs");
  WriteTensors(w, config, config.output());
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string IndexJson(const std::vector<IndexEntry>& index, bool ready_only) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartArray();
  for (const IndexEntry& entry : index) {
    if (ready_only && entry.state != ModelState::kReady) continue;
    w.StartObject();
    w.Key("name");
    WriteString(w, entry.name);
    if (entry.version >= 0) {
      w.Key("version");
      WriteString(w, std::to_string(entry.version));
    }
    if (entry.state != ModelState::kNotLoaded) {
      w.Key("state");
      WriteString(w, ModelStateName(entry.state));
      w.Key("reason");
      WriteString(w, entry.reason);
    }
    w.EndObject();
  }
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd
