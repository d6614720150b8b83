#include "backend_io.h"

#include <cstdio>
#include <cstring>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace inferd::python {

Status FromError(INFERD_Error* error) {
  if (error == nullptr) return Status::Ok();
  Status status(static_cast<Status::Code>(INFERD_ErrorCode(error)), INFERD_ErrorMessage(error));
  INFERD_ErrorDelete(error);
  return status;
}

INFERD_Error* ToError(const Status& status) {
  if (status.ok()) return nullptr;
  return INFERD_ErrorNew(static_cast<INFERD_Error_Code>(status.code()), status.message().c_str());
}

namespace {

// The request's custom parameters as the JSON object request.parameters()
// returns in Python.
Status ParametersJson(INFERD_Request* request, std::string* json) {
  uint32_t count = 0;
  if (Status s = FromError(INFERD_RequestParameterCount(request, &count)); !s.ok()) return s;
  if (count == 0) {
    *json = "{}";
    return Status::Ok();
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    INFERD_ParameterType type;
    const void* value = nullptr;
    if (Status s = FromError(INFERD_RequestParameter(request, i, &name, &type, &value)); !s.ok()) {
      return s;
    }
    writer.Key(name);
    switch (type) {
      case INFERD_PARAMETER_STRING: writer.String(static_cast<const char*>(value)); break;
      case INFERD_PARAMETER_INT: writer.Int64(*static_cast<const int64_t*>(value)); break;
      case INFERD_PARAMETER_BOOL: writer.Bool(*static_cast<const bool*>(value)); break;
      case INFERD_PARAMETER_DOUBLE: writer.Double(*static_cast<const double*>(value)); break;
    }
  }
  writer.EndObject();
  json->assign(buffer.GetString(), buffer.GetSize());
  return Status::Ok();
}

Status GatherInput(INFERD_Request* request, uint32_t index, InputView* view) {
  INFERD_Input* input = nullptr;
  if (Status s = FromError(INFERD_RequestInputByIndex(request, index, &input)); !s.ok()) return s;
  const char* name = nullptr;
  INFERD_DataType datatype;
  const int64_t* shape = nullptr;
  uint32_t dims = 0;
  uint32_t buffers = 0;
  if (Status s = FromError(INFERD_InputProperties(input, &name, &datatype, &shape, &dims,
                                                  &view->byte_size, &buffers));
      !s.ok()) {
    return s;
  }
  view->name = name;
  view->datatype = datatype;
  view->shape.assign(shape, shape + dims);
  view->buffers.resize(buffers);
  for (uint32_t b = 0; b < buffers; ++b) {
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    auto& [data, size] = view->buffers[b];
    if (Status s = FromError(
            INFERD_InputBuffer(input, b, &data, &size, &memory_type, &memory_type_id));
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace

Status GatherRequest(INFERD_Request* request, uint64_t handle, RequestView* view) {
  view->handle = handle;
  const char* id = "";
  if (Status s = FromError(INFERD_RequestId(request, &id)); !s.ok()) return s;
  view->id = id;
  if (Status s = FromError(INFERD_RequestCorrelationId(request, &view->correlation_id)); !s.ok()) {
    return s;
  }
  const char* correlation = "";
  if (Status s = FromError(INFERD_RequestCorrelationIdString(request, &correlation)); !s.ok()) {
    return s;
  }
  view->correlation_id_string = correlation;
  const char* traceparent = "";
  if (Status s = FromError(INFERD_RequestTraceParent(request, &traceparent)); !s.ok()) return s;
  view->traceparent = traceparent;
  if (Status s = FromError(INFERD_RequestFlags(request, &view->flags)); !s.ok()) return s;
  if (Status s = FromError(INFERD_RequestTimeoutMicroseconds(request, &view->timeout_us));
      !s.ok()) {
    return s;
  }
  if (Status s = ParametersJson(request, &view->parameters_json); !s.ok()) return s;
  uint32_t outputs = 0;
  if (Status s = FromError(INFERD_RequestOutputCount(request, &outputs)); !s.ok()) return s;
  view->outputs.resize(outputs);
  for (uint32_t i = 0; i < outputs; ++i) {
    const char* name = nullptr;
    if (Status s = FromError(INFERD_RequestOutputName(request, i, &name)); !s.ok()) return s;
    view->outputs[i] = name;
  }
  uint32_t inputs = 0;
  if (Status s = FromError(INFERD_RequestInputCount(request, &inputs)); !s.ok()) return s;
  view->inputs.resize(inputs);
  for (uint32_t i = 0; i < inputs; ++i) {
    if (Status s = GatherInput(request, i, &view->inputs[i]); !s.ok()) return s;
  }
  return Status::Ok();
}

namespace {

Status AddOutputs(INFERD_Response* response, const ResponseView& view) {
  for (const auto& out : view.outputs) {
    const std::string name(out.name);
    INFERD_Output* output = nullptr;
    if (Status s = FromError(INFERD_ResponseOutput(
            response, &output, name.c_str(), static_cast<INFERD_DataType>(out.datatype),
            out.shape.data(), static_cast<uint32_t>(out.shape.size())));
        !s.ok()) {
      return s;
    }
    void* dst = nullptr;
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    if (Status s = FromError(
            INFERD_OutputBuffer(output, &dst, out.byte_size, &memory_type, &memory_type_id));
        !s.ok()) {
      return s;
    }
    if (out.byte_size > 0) std::memcpy(dst, out.data, out.byte_size);
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Fills and sends `response` (made for a sender or a request).
Status Fill(INFERD_Response* response, const ResponseView& view, uint32_t flags) {
  Status outputs = view.has_error
                       ? Status(static_cast<Status::Code>(view.error_code <= 7 ? view.error_code : 1),
                                std::string(view.error))
                       : AddOutputs(response, view);
  // A response with an error carries no outputs: the server drops those added.
  return FromError(INFERD_ResponseSend(response, flags, ToError(outputs)));
}

}  // namespace

Status SendResponse(INFERD_ResponseSender* sender, const ResponseView& view, uint32_t flags) {
  INFERD_Response* response = nullptr;
  if (Status s = FromError(INFERD_ResponseNewFromSender(&response, sender)); !s.ok()) return s;
  return Fill(response, view, flags);
}

Status SendResponse(INFERD_Request* request, const ResponseView& view, uint32_t flags) {
  INFERD_Response* response = nullptr;
  if (Status s = FromError(INFERD_ResponseNew(&response, request)); !s.ok()) return s;
  return Fill(response, view, flags);
}

Status SendError(INFERD_ResponseSender* sender, const Status& error, uint32_t flags) {
  INFERD_Response* response = nullptr;
  if (Status s = FromError(INFERD_ResponseNewFromSender(&response, sender)); !s.ok()) return s;
  return FromError(INFERD_ResponseSend(response, flags, ToError(error)));
}

Status SendError(INFERD_Request* request, const Status& error, uint32_t flags) {
  INFERD_Response* response = nullptr;
  if (Status s = FromError(INFERD_ResponseNew(&response, request)); !s.ok()) return s;
  return FromError(INFERD_ResponseSend(response, flags, ToError(error)));
}

void FailRequest(INFERD_Request* request, const Status& error) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, request)) {
    INFERD_ErrorDelete(err);
  } else {
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL,
                                           ToError(error)));
  }
  INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
}

}  // namespace inferd::python
