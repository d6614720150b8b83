// ParsedInferRequest -> INFERD_InferenceRequest through the server API.
#include "http/infer_request_builder.h"

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
INFERD_Error* Fill(INFERD_InferenceRequest* request, const ParsedInferRequest& parsed) {
  INFERD_Error* error = nullptr;
  if (parsed.id != nullptr && (error = INFERD_InferenceRequestSetId(request, parsed.id))) {
    return error;
  }
  if (parsed.flags != 0 && (error = INFERD_InferenceRequestSetFlags(request, parsed.flags))) {
    return error;
  }
  if (parsed.sequence_id &&
      (error = INFERD_InferenceRequestSetCorrelationId(request, *parsed.sequence_id))) {
    return error;
  }
  if (parsed.sequence_id_string != nullptr &&
      (error = INFERD_InferenceRequestSetCorrelationIdString(request, parsed.sequence_id_string))) {
    return error;
  }
  if (parsed.priority != 0 &&
      (error = INFERD_InferenceRequestSetPriority(request, parsed.priority))) {
    return error;
  }
  if (parsed.timeout_us != 0 &&
      (error = INFERD_InferenceRequestSetTimeoutMicroseconds(request, parsed.timeout_us))) {
    return error;
  }
  for (const ParsedParameter& parameter : parsed.parameters) {
    if ((error = SetParameter(request, parameter))) return error;
  }
  for (const ParsedInput& input : parsed.inputs) {
    if ((error = INFERD_InferenceRequestAddInput(request, input.name, input.datatype,
                                                 input.shape.data(), input.shape.size()))) {
      return error;
    }
    if ((error = INFERD_InferenceRequestAppendInputData(request, input.name, input.data,
                                                        input.byte_size, INFERD_MEMORY_CPU, 0))) {
      return error;
    }
  }
  for (const ParsedOutput& output : parsed.outputs) {
    if ((error = INFERD_InferenceRequestAddRequestedOutput(request, output.name.c_str()))) {
      return error;
    }
    if (output.class_count > 0 &&
        (error = INFERD_InferenceRequestSetOutputClassification(request, output.name.c_str(),
                                                                output.class_count))) {
      return error;
    }
  }
  return nullptr;
}

}  // namespace

Status BuildInferRequest(INFERD_Server* server, const std::string& model_name,
                         int64_t model_version, const ParsedInferRequest& parsed,
                         INFERD_InferenceRequest** request) {
  *request = nullptr;
  INFERD_InferenceRequest* created = nullptr;
  if (INFERD_Error* error =
          INFERD_InferenceRequestNew(&created, server, model_name.c_str(), model_version)) {
    return Status::FromServerError(error);
  }
  if (INFERD_Error* error = Fill(created, parsed)) {
    DiscardServerError(INFERD_InferenceRequestDelete(created));
    return Status::FromServerError(error);
  }
  *request = created;
  return Status::Ok();
}

}  // namespace inferd::http
