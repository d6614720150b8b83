// INFERD_InferenceResponse -> generate extension JSON object.
#include "http/generate_response.h"

#include "common/response_reader.h"
#include "http/infer_response_writer.h"

namespace inferd::http {

Status RenderGenerateResponse(INFERD_InferenceResponse* response, JsonWriter* writer) {
  ResponseSummary summary;
  RETURN_IF_ERROR(ReadResponseSummary(response, &summary));
  writer->StartObject();
  WriteResponseIdentity(summary, writer);
  for (uint32_t i = 0; i < summary.output_count; ++i) {
    ResponseOutput output;
    RETURN_IF_ERROR(ReadResponseOutput(response, i, "HTTP", &output));
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
