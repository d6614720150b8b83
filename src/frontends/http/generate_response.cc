// INFERD_InferenceResponse -> generate extension JSON object.
#include "http/generate_response.h"

#include <charconv>

#include "common/server_error.h"
#include "http/response_output.h"

namespace inferd::http {

Status RenderGenerateResponse(INFERD_InferenceResponse* response, JsonWriter* writer) {
  // Owned by the response: copied, not freed.
  RETURN_IF_ERROR(StatusFromBorrowedError(INFERD_InferenceResponseError(response)));
  const char* model_name = nullptr;
  int64_t model_version = -1;
  const char* id = nullptr;
  uint32_t output_count = 0;
  RETURN_IF_ERROR(
      StatusFromServerError(INFERD_InferenceResponseModel(response, &model_name, &model_version)));
  RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceResponseId(response, &id)));
  RETURN_IF_ERROR(
      StatusFromServerError(INFERD_InferenceResponseOutputCount(response, &output_count)));

  writer->StartObject();
  writer->Key("model_name");
  writer->String(model_name ? model_name : "");
  writer->Key("model_version");
  char version[24];
  const auto end = std::to_chars(version, version + sizeof version, model_version).ptr;
  writer->String(version, static_cast<rapidjson::SizeType>(end - version));
  if (id != nullptr && id[0] != '\0') {
    writer->Key("id");
    writer->String(id);
  }
  for (uint32_t i = 0; i < output_count; ++i) {
    ResponseOutput output;
    RETURN_IF_ERROR(ReadResponseOutput(response, i, &output));
    writer->Key(output.name);
    RETURN_IF_ERROR(TensorToJson(output.base, output.byte_size, output.datatype,
                                 output.ElementCount(), output.name, writer,
                                 /*unwrap_single=*/true));
  }
  writer->EndObject();
  return Status::Ok();
}

void RenderGenerateError(std::string_view message, JsonWriter* writer) {
  writer->StartObject();
  writer->Key("error");
  writer->String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  writer->EndObject();
}

}  // namespace inferd::http
