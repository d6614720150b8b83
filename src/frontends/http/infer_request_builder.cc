// ParsedInferRequest -> INFERD_InferenceRequest through the server API.
#include "http/infer_request_builder.h"

#include "common/server_error.h"

namespace inferd::http {
namespace {

INFERD_Error* SetParameter(INFERD_InferenceRequest* request, const ParsedParameter& parameter) {
  switch (parameter.kind) {
    case ParsedParameter::Kind::kString:
      return INFERD_InferenceRequestSetStringParameter(request, parameter.name,
                                                       parameter.string_value);
    case ParsedParameter::Kind::kInt:
      return INFERD_InferenceRequestSetIntParameter(request, parameter.name, parameter.int_value);
    case ParsedParameter::Kind::kBool:
      return INFERD_InferenceRequestSetBoolParameter(request, parameter.name,
                                                     parameter.bool_value);
    case ParsedParameter::Kind::kDouble:
      return INFERD_InferenceRequestSetDoubleParameter(request, parameter.name,
                                                       parameter.double_value);
  }
  return nullptr;
}

// Everything but creation; the first server error is returned.
Status Fill(INFERD_InferenceRequest* request, const ParsedInferRequest& parsed) {
  if (parsed.id != nullptr) {
    RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestSetId(request, parsed.id)));
  }
  if (parsed.flags != 0) {
    RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestSetFlags(request, parsed.flags)));
  }
  if (parsed.sequence_id) {
    RETURN_IF_ERROR(StatusFromServerError(
        INFERD_InferenceRequestSetCorrelationId(request, *parsed.sequence_id)));
  }
  if (parsed.sequence_id_string != nullptr) {
    RETURN_IF_ERROR(StatusFromServerError(
        INFERD_InferenceRequestSetCorrelationIdString(request, parsed.sequence_id_string)));
  }
  if (parsed.priority != 0) {
    RETURN_IF_ERROR(
        StatusFromServerError(INFERD_InferenceRequestSetPriority(request, parsed.priority)));
  }
  if (parsed.timeout_us != 0) {
    RETURN_IF_ERROR(StatusFromServerError(
        INFERD_InferenceRequestSetTimeoutMicroseconds(request, parsed.timeout_us)));
  }
  for (const ParsedParameter& parameter : parsed.parameters) {
    RETURN_IF_ERROR(StatusFromServerError(SetParameter(request, parameter)));
  }
  for (const ParsedInput& input : parsed.inputs) {
    RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestAddInput(
        request, input.name, input.datatype, input.shape.data(), input.shape.size())));
    RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestAppendInputData(
        request, input.name, input.data, input.byte_size, INFERD_MEMORY_CPU, 0)));
  }
  for (const ParsedOutput& output : parsed.outputs) {
    RETURN_IF_ERROR(StatusFromServerError(
        INFERD_InferenceRequestAddRequestedOutput(request, output.name.c_str())));
    if (output.class_count > 0) {
      RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestSetOutputClassification(
          request, output.name.c_str(), output.class_count)));
    }
  }
  return Status::Ok();
}

}  // namespace

Status BuildInferRequest(INFERD_Server* server, const std::string& model_name,
                         int64_t model_version, const ParsedInferRequest& parsed,
                         INFERD_InferenceRequest** request) {
  *request = nullptr;
  INFERD_InferenceRequest* created = nullptr;
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_InferenceRequestNew(&created, server, model_name.c_str(), model_version)));
  if (Status s = Fill(created, parsed); !s.ok()) {
    DiscardServerError(INFERD_InferenceRequestDelete(created));
    return s;
  }
  *request = created;
  return Status::Ok();
}

}  // namespace inferd::http
