// INFERD_InferenceResponse -> JSON header plus borrowed binary output buffers.
#include "http/infer_response_writer.h"

#include <charconv>
#include <cstring>
#include <string>

#include "common/server_error.h"
#include "http/tensor_json.h"

namespace inferd::http {
namespace {

void WriteShape(const ResponseOutput& output, JsonWriter* writer) {
  writer->StartArray();
  for (uint64_t i = 0; i < output.dim_count; ++i) writer->Int64(output.shape[i]);
  writer->EndArray();
}

Status WriteOutput(const ResponseOutput& output, const OutputFormat& format, JsonWriter* writer,
                   std::vector<std::string_view>* binary) {
  writer->StartObject();
  writer->Key("name");
  writer->String(output.name);
  writer->Key("datatype");
  writer->String(INFERD_DataTypeString(output.datatype));
  writer->Key("shape");
  WriteShape(output, writer);
  const ParsedOutput* requested = format.any_shared_memory ? format.Find(output.name) : nullptr;
  if (requested != nullptr && !requested->shared_memory.region.empty()) {
    // In shared memory: no data and, as Triton, no parameters either (its C++
    // client, perf_analyzer's, reads any output "parameters" as binary data).
  } else if (format.IsBinary(output.name)) {
    writer->Key("parameters");
    writer->StartObject();
    writer->Key("binary_data_size");
    writer->Uint64(output.byte_size);
    writer->EndObject();
    binary->emplace_back(static_cast<const char*>(output.base), output.byte_size);
  } else {
    writer->Key("data");
    if (Status s = TensorToJson(output.base, output.byte_size, output.datatype,
                                output.ElementCount(), output.name, writer);
        !s.ok()) {
      return s;
    }
  }
  writer->EndObject();
  return Status::Ok();
}

}  // namespace

const ParsedOutput* OutputFormat::Find(const char* name) const {
  for (const ParsedOutput& output : requested) {
    if (output.name == name) return &output;
  }
  return nullptr;
}

bool OutputFormat::IsBinary(const char* name) const {
  const ParsedOutput* output = Find(name);
  return output != nullptr ? output->binary : binary_by_default;
}

void WriteResponseIdentity(const ResponseSummary& summary, JsonWriter* writer) {
  writer->Key("model_name");
  writer->String(summary.model_name ? summary.model_name : "");
  writer->Key("model_version");
  char version[24];
  const auto end = std::to_chars(version, version + sizeof version, summary.model_version).ptr;
  writer->String(version, static_cast<rapidjson::SizeType>(end - version));
  if (summary.id != nullptr && summary.id[0] != '\0') {
    writer->Key("id");
    writer->String(summary.id);
  }
}

Status RenderInferResponse(INFERD_InferenceResponse* response, const OutputFormat& format,
                           rapidjson::StringBuffer* json, std::vector<std::string_view>* binary) {
  json->Clear();
  ResponseSummary summary;
  RETURN_IF_ERROR(ReadResponseSummary(response, &summary));
  JsonWriter writer(*json);
  writer.StartObject();
  WriteResponseIdentity(summary, &writer);
  writer.Key("outputs");
  writer.StartArray();
  for (uint32_t i = 0; i < summary.output_count; ++i) {
    ResponseOutput output;
    if (Status s = ReadResponseOutput(response, i, "HTTP", &output); !s.ok()) return s;
    if (Status s = WriteOutput(output, format, &writer, binary); !s.ok()) {
      return s;
    }
  }
  writer.EndArray();
  writer.EndObject();
  return Status::Ok();
}

}  // namespace inferd::http
