// INFERD_InferenceResponse -> JSON header plus borrowed binary output buffers.
#include "http/infer_response_writer.h"

#include <charconv>
#include <cstring>
#include <string>

#include "common/server_error.h"
#include "http/tensor_json.h"

namespace inferd::http {
namespace {

// One output of a response, as the server API reports it.
struct Output {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  uint64_t dim_count = 0;
  const void* base = nullptr;
  size_t byte_size = 0;
};

Status ReadOutput(INFERD_InferenceResponse* response, uint32_t index, Output* output) {
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  void* buffer_userp = nullptr;
  if (INFERD_Error* error = INFERD_InferenceResponseOutput(
          response, index, &output->name, &output->datatype, &output->shape, &output->dim_count,
          &output->base, &output->byte_size, &memory_type, &memory_type_id, &buffer_userp)) {
    return StatusFromServerError(error);
  }
  if (memory_type == INFERD_MEMORY_GPU) {
    return Status::Unsupported("output '" + std::string(output->name) +
                               "' is in GPU memory, which the HTTP frontend cannot return yet");
  }
  return Status::Ok();
}

void WriteShape(const Output& output, JsonWriter* writer) {
  writer->StartArray();
  for (uint64_t i = 0; i < output.dim_count; ++i) writer->Int64(output.shape[i]);
  writer->EndArray();
}

uint64_t ElementCount(const Output& output) {
  uint64_t count = 1;
  for (uint64_t i = 0; i < output.dim_count; ++i) {
    count *= output.shape[i] < 0 ? 0 : static_cast<uint64_t>(output.shape[i]);
  }
  return count;
}

Status WriteOutput(const Output& output, const OutputFormat& format, JsonWriter* writer,
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
                                ElementCount(output), output.name, writer);
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

Status RenderInferResponse(INFERD_InferenceResponse* response, const OutputFormat& format,
                           rapidjson::StringBuffer* json, std::vector<std::string_view>* binary) {
  json->Clear();
  // Owned by the response: copied, not freed.
  RETURN_IF_ERROR(StatusFromBorrowedError(INFERD_InferenceResponseError(response)));
  const char* model_name = nullptr;
  int64_t model_version = -1;
  const char* id = nullptr;
  uint32_t output_count = 0;
  if (Status s = StatusFromServerError(
          INFERD_InferenceResponseModel(response, &model_name, &model_version));
      !s.ok()) {
    return s;
  }
  if (Status s = StatusFromServerError(INFERD_InferenceResponseId(response, &id)); !s.ok()) {
    return s;
  }
  if (Status s =
          StatusFromServerError(INFERD_InferenceResponseOutputCount(response, &output_count));
      !s.ok()) {
    return s;
  }

  JsonWriter writer(*json);
  writer.StartObject();
  writer.Key("model_name");
  writer.String(model_name ? model_name : "");
  writer.Key("model_version");
  char version[24];
  const auto end = std::to_chars(version, version + sizeof version, model_version).ptr;
  writer.String(version, static_cast<rapidjson::SizeType>(end - version));
  if (id != nullptr && id[0] != '\0') {
    writer.Key("id");
    writer.String(id);
  }
  writer.Key("outputs");
  writer.StartArray();
  for (uint32_t i = 0; i < output_count; ++i) {
    Output output;
    if (Status s = ReadOutput(response, i, &output); !s.ok()) return s;
    if (Status s = WriteOutput(output, format, &writer, binary); !s.ok()) {
      return s;
    }
  }
  writer.EndArray();
  writer.EndObject();
  return Status::Ok();
}

}  // namespace inferd::http
