// The C ABI offered to backends (backend.h), second half: requests, their
// inputs, responses, response senders and outputs. The backend, model and
// instance accessors: backend_model_api.cc.
#include "core/api/error.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/response_sender.h"
#include "core/trace/request_trace.h"
#include "inferd/backend.h"

#include <memory>
#include <string>
#include <variant>

using inferd::GuardedCall;
using inferd::GuardedRead;
using inferd::InferenceRequest;
using inferd::InferenceResponse;
using inferd::InputTensor;
using inferd::OutputTensor;
using inferd::RequestParameter;
using inferd::Status;

// A backend's handle on a request's sender; the sender outlives the request.
struct INFERD_ResponseSender {
  std::shared_ptr<inferd::ResponseSender> sender;
};

namespace {

InferenceRequest* Unwrap(INFERD_Request* request) {
  return reinterpret_cast<InferenceRequest*>(request);
}
InputTensor* Unwrap(INFERD_Input* input) { return reinterpret_cast<InputTensor*>(input); }
InferenceResponse* Unwrap(INFERD_Response* response) {
  return reinterpret_cast<InferenceResponse*>(response);
}
OutputTensor* Unwrap(INFERD_Output* output) { return reinterpret_cast<OutputTensor*>(output); }

}  // namespace

extern "C" {

// --- Request

INFERD_Error* INFERD_RequestId(INFERD_Request* request, const char** id) {
  return GuardedRead(request, id, [&] { return Unwrap(request)->id.c_str(); });
}

INFERD_Error* INFERD_RequestCorrelationId(INFERD_Request* request, uint64_t* id) {
  return GuardedRead(request, id, [&] { return Unwrap(request)->correlation_id; });
}

INFERD_Error* INFERD_RequestCorrelationIdString(INFERD_Request* request, const char** id) {
  return GuardedRead(request, id, [&] { return Unwrap(request)->correlation_id_string.c_str(); });
}

INFERD_Error* INFERD_RequestTraceParent(INFERD_Request* request, const char** traceparent) {
  return GuardedRead(request, traceparent, [&] {
    const auto& trace = Unwrap(request)->trace;
    return trace ? trace->traceparent().c_str() : "";
  });
}

INFERD_Error* INFERD_RequestFlags(INFERD_Request* request, uint32_t* flags) {
  return GuardedRead(request, flags, [&] { return Unwrap(request)->flags; });
}

INFERD_Error* INFERD_RequestTimeoutMicroseconds(INFERD_Request* request, uint64_t* timeout_us) {
  return GuardedRead(request, timeout_us, [&] { return Unwrap(request)->timeout_us; });
}

INFERD_Error* INFERD_RequestInputCount(INFERD_Request* request, uint32_t* count) {
  return GuardedRead(request, count,
                     [&] { return static_cast<uint32_t>(Unwrap(request)->inputs().size()); });
}

INFERD_Error* INFERD_RequestInputByIndex(INFERD_Request* request, uint32_t index,
                                         INFERD_Input** input) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    INFERD_REQUIRE_ARG(input);
    auto& inputs = Unwrap(request)->inputs();
    if (index >= inputs.size()) {
      return Status::InvalidArg("input index " + std::to_string(index) + " is out of range");
    }
    *input = reinterpret_cast<INFERD_Input*>(&inputs[index]);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_RequestInput(INFERD_Request* request, const char* name, INFERD_Input** input) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    INFERD_REQUIRE_ARG(name);
    INFERD_REQUIRE_ARG(input);
    InputTensor* found = Unwrap(request)->FindInput(name);
    if (found == nullptr) {
      return Status::NotFound("request for model '" + Unwrap(request)->model_name() +
                              "' has no input '" + name + "'");
    }
    *input = reinterpret_cast<INFERD_Input*>(found);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_RequestOutputCount(INFERD_Request* request, uint32_t* count) {
  return GuardedRead(request, count, [&] {
    const auto& outputs = Unwrap(request)->outputs;
    return static_cast<uint32_t>(outputs ? outputs->size() : 0);
  });
}

INFERD_Error* INFERD_RequestParameterCount(INFERD_Request* request, uint32_t* count) {
  return GuardedRead(request, count,
                     [&] { return static_cast<uint32_t>(Unwrap(request)->parameters.size()); });
}

INFERD_Error* INFERD_RequestParameter(INFERD_Request* request, uint32_t index, const char** name,
                                      INFERD_ParameterType* type, const void** value) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    INFERD_REQUIRE_ARG(name);
    INFERD_REQUIRE_ARG(type);
    INFERD_REQUIRE_ARG(value);
    const auto& parameters = Unwrap(request)->parameters;
    if (index >= parameters.size()) {
      return Status::InvalidArg("parameter index " + std::to_string(index) + " is out of range (" +
                                std::to_string(parameters.size()) + " parameters)");
    }
    const RequestParameter& parameter = parameters[index];
    *name = parameter.name.c_str();
    if (const auto* text = std::get_if<std::string>(&parameter.value)) {
      *type = INFERD_PARAMETER_STRING;
      *value = text->c_str();
    } else if (const auto* number = std::get_if<int64_t>(&parameter.value)) {
      *type = INFERD_PARAMETER_INT;
      *value = number;
    } else if (const auto* flag = std::get_if<bool>(&parameter.value)) {
      *type = INFERD_PARAMETER_BOOL;
      *value = flag;
    } else {
      *type = INFERD_PARAMETER_DOUBLE;
      *value = &std::get<double>(parameter.value);
    }
    return Status::Ok();
  });
}

INFERD_Error* INFERD_RequestOutputName(INFERD_Request* request, uint32_t index,
                                       const char** name) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    INFERD_REQUIRE_ARG(name);
    const auto& outputs = Unwrap(request)->outputs;
    if (!outputs || index >= outputs->size()) {
      return Status::InvalidArg("requested output index " + std::to_string(index) +
                                " is out of range");
    }
    *name = (*outputs)[index].c_str();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_RequestIsCancelled(INFERD_Request* request, bool* cancelled) {
  return GuardedRead(request, cancelled, [&] { return Unwrap(request)->IsCancelled(); });
}

INFERD_Error* INFERD_RequestRelease(INFERD_Request* request, uint32_t flags) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    return Unwrap(request)->ReleaseFromBackend(flags);
  });
}

// --- Input

INFERD_Error* INFERD_InputProperties(INFERD_Input* input, const char** name,
                                     INFERD_DataType* datatype, const int64_t** shape,
                                     uint32_t* dim_count, uint64_t* byte_size,
                                     uint32_t* buffer_count) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(input);
    const InputTensor& tensor = *Unwrap(input);
    if (name) *name = tensor.name.c_str();
    if (datatype) *datatype = tensor.datatype;
    if (shape) *shape = tensor.shape.data();
    if (dim_count) *dim_count = static_cast<uint32_t>(tensor.shape.size());
    if (byte_size) *byte_size = tensor.byte_size;
    if (buffer_count) *buffer_count = static_cast<uint32_t>(tensor.buffers.size());
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InputBuffer(INFERD_Input* input, uint32_t index, const void** buffer,
                                 uint64_t* byte_size, INFERD_MemoryType* memory_type,
                                 int64_t* memory_type_id) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(input);
    const InputTensor& tensor = *Unwrap(input);
    if (index >= tensor.buffers.size()) {
      return Status::InvalidArg("input '" + tensor.name + "' buffer index " +
                                std::to_string(index) + " is out of range");
    }
    const inferd::InputBuffer& piece = tensor.buffers[index];
    if (buffer) *buffer = piece.base;
    if (byte_size) *byte_size = piece.byte_size;
    if (memory_type) *memory_type = piece.memory_type;
    if (memory_type_id) *memory_type_id = piece.memory_type_id;
    return Status::Ok();
  });
}

// --- Response

INFERD_Error* INFERD_ResponseNew(INFERD_Response** response, INFERD_Request* request) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(request);
    *response = reinterpret_cast<INFERD_Response*>(new InferenceResponse(*Unwrap(request)));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ResponseDelete(INFERD_Response* response) {
  delete Unwrap(response);
  return nullptr;
}

INFERD_Error* INFERD_ResponseSend(INFERD_Response* response, uint32_t flags,
                                  INFERD_Error* error) {
  return GuardedCall([&] {
    Status taken = inferd::TakeError(error);  // owned even when the call fails
    INFERD_REQUIRE_ARG(response);
    std::unique_ptr<InferenceResponse> owned(Unwrap(response));
    return InferenceResponse::Send(std::move(owned), flags, std::move(taken));
  });
}

// --- Response sender

INFERD_Error* INFERD_ResponseSenderNew(INFERD_ResponseSender** sender, INFERD_Request* request) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(sender);
    INFERD_REQUIRE_ARG(request);
    auto handle = std::make_unique<INFERD_ResponseSender>();
    handle->sender = Unwrap(request)->OpenSender();
    handle->sender->OpenHandle();
    *sender = handle.release();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ResponseSenderDelete(INFERD_ResponseSender* sender) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(sender);
    std::unique_ptr<INFERD_ResponseSender> handle(sender);
    handle->sender->CloseHandle();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ResponseNewFromSender(INFERD_Response** response,
                                           INFERD_ResponseSender* sender) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(sender);
    ASSIGN_OR_RETURN(std::unique_ptr<InferenceResponse> created, sender->sender->NewResponse());
    *response = reinterpret_cast<INFERD_Response*>(created.release());
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ResponseSenderSendFlags(INFERD_ResponseSender* sender, uint32_t flags) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(sender);
    if ((flags & INFERD_RESPONSE_COMPLETE_FINAL) == 0) {
      return Status::InvalidArg("INFERD_ResponseSenderSendFlags needs the FINAL flag");
    }
    return sender->sender->Send(nullptr, flags, Status::Ok());
  });
}

INFERD_Error* INFERD_ResponseSenderIsCancelled(INFERD_ResponseSender* sender, bool* cancelled) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(sender);
    INFERD_REQUIRE_ARG(cancelled);
    *cancelled = sender->sender->IsCancelled();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ResponseOutput(INFERD_Response* response, INFERD_Output** output,
                                    const char* name, INFERD_DataType datatype,
                                    const int64_t* shape, uint32_t dim_count) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(output);
    INFERD_REQUIRE_ARG(name);
    if (dim_count > 0) INFERD_REQUIRE_ARG(shape);
    ASSIGN_OR_RETURN(OutputTensor * added,
                     Unwrap(response)->AddOutput(name, datatype, shape, dim_count));
    *output = reinterpret_cast<INFERD_Output*>(added);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_OutputBuffer(INFERD_Output* output, void** buffer, uint64_t byte_size,
                                  INFERD_MemoryType* memory_type, int64_t* memory_type_id) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(output);
    INFERD_REQUIRE_ARG(buffer);
    INFERD_REQUIRE_ARG(memory_type);
    INFERD_REQUIRE_ARG(memory_type_id);
    OutputTensor* tensor = Unwrap(output);
    RETURN_IF_ERROR(
        tensor->response->AllocateBuffer(tensor, byte_size, memory_type, memory_type_id));
    *buffer = tensor->buffer;
    return Status::Ok();
  });
}

}  // extern "C"

