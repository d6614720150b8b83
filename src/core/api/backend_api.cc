// C ABI offered to backends (backend.h): accessors over the backend library,
// model version, instance, request and response objects.
#include "core/api/error.h"
#include "core/backend/backend_library.h"
#include "core/common/copy_workers.h"
#include "core/config/model_config_json.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/response_sender.h"
#include "core/model/model_instance.h"
#include "core/model/model_version.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <vector>

using inferd::BackendLibrary;
using inferd::GuardedCall;
using inferd::InferenceRequest;
using inferd::InferenceResponse;
using inferd::InputTensor;
using inferd::ModelInstance;
using inferd::ModelVersion;
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

// Runs `get` on a checked handle and output pointer.
template <typename Handle, typename Out, typename Get>
INFERD_Error* Read(Handle* handle, Out* out, Get&& get) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(handle);
    INFERD_REQUIRE_ARG(out);
    *out = get();
    return Status::Ok();
  });
}

std::string SettingsJson(const std::map<std::string, std::string>& settings) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  for (const auto& [key, value] : settings) {
    w.Key(key.c_str());
    w.String(value.c_str());
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_BackendApiVersion(uint32_t* major, uint32_t* minor) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(major);
    INFERD_REQUIRE_ARG(minor);
    *major = INFERD_BACKEND_API_VERSION_MAJOR;
    *minor = INFERD_BACKEND_API_VERSION_MINOR;
    return Status::Ok();
  });
}

// --- Backend

INFERD_Error* INFERD_BackendName(INFERD_Backend* backend, const char** name) {
  return Read(backend, name, [&] { return BackendLibrary::FromHandle(backend)->name().c_str(); });
}

INFERD_Error* INFERD_BackendConfig(INFERD_Backend* backend, INFERD_Message** config) {
  return Read(backend, config, [&] {
    return new INFERD_Message{SettingsJson(BackendLibrary::FromHandle(backend)->settings())};
  });
}

INFERD_Error* INFERD_BackendSetState(INFERD_Backend* backend, void* state) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(backend);
    BackendLibrary::FromHandle(backend)->state = state;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_BackendState(INFERD_Backend* backend, void** state) {
  return Read(backend, state, [&] { return BackendLibrary::FromHandle(backend)->state; });
}

// --- Model

INFERD_Error* INFERD_ModelName(INFERD_Model* model, const char** name) {
  return Read(model, name, [&] { return ModelVersion::FromHandle(model)->name().c_str(); });
}

INFERD_Error* INFERD_ModelVersion(INFERD_Model* model, uint64_t* version) {
  return Read(model, version, [&] {
    return static_cast<uint64_t>(ModelVersion::FromHandle(model)->version());
  });
}

INFERD_Error* INFERD_ModelRepositoryPath(INFERD_Model* model, const char** path) {
  return Read(model, path, [&] { return ModelVersion::FromHandle(model)->model_dir().c_str(); });
}

INFERD_Error* INFERD_ModelConfig(INFERD_Model* model, INFERD_Message** config) {
  return Read(model, config, [&] {
    return new INFERD_Message{ModelVersion::FromHandle(model)->config_json()};
  });
}

INFERD_Error* INFERD_ModelAutoCompleteConfig(INFERD_Model* model, bool* auto_complete) {
  return Read(model, auto_complete,
              [&] { return ModelVersion::FromHandle(model)->may_complete_config(); });
}

INFERD_Error* INFERD_ModelSetConfig(INFERD_Model* model, const char* config_json) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(model);
    INFERD_REQUIRE_ARG(config_json);
    inference::ModelConfig config;
    RETURN_IF_ERROR(inferd::ModelConfigFromJson(config_json, &config));
    return ModelVersion::FromHandle(model)->CompleteConfig(std::move(config));
  });
}

INFERD_Error* INFERD_ModelBackend(INFERD_Model* model, INFERD_Backend** backend) {
  return Read(model, backend, [&] { return ModelVersion::FromHandle(model)->backend().handle(); });
}

INFERD_Error* INFERD_ModelServer(INFERD_Model* model, INFERD_Server** server) {
  return Read(model, server, [&] {
    return reinterpret_cast<INFERD_Server*>(ModelVersion::FromHandle(model)->server());
  });
}

INFERD_Error* INFERD_ModelSetState(INFERD_Model* model, void* state) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(model);
    ModelVersion::FromHandle(model)->state = state;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelState(INFERD_Model* model, void** state) {
  return Read(model, state, [&] { return ModelVersion::FromHandle(model)->state; });
}

// --- Instance

INFERD_Error* INFERD_ModelInstanceName(INFERD_ModelInstance* instance, const char** name) {
  return Read(instance, name, [&] { return ModelInstance::FromHandle(instance)->name().c_str(); });
}

INFERD_Error* INFERD_ModelInstanceKind(INFERD_ModelInstance* instance, INFERD_InstanceKind* kind) {
  return Read(instance, kind, [&] { return ModelInstance::FromHandle(instance)->kind(); });
}

INFERD_Error* INFERD_ModelInstanceDeviceId(INFERD_ModelInstance* instance, int32_t* device_id) {
  return Read(instance, device_id,
              [&] { return ModelInstance::FromHandle(instance)->device_id(); });
}

INFERD_Error* INFERD_ModelInstanceCopyBuffers(INFERD_ModelInstance* instance,
                                             const INFERD_MemoryCopy* copies, uint32_t count) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    if (count == 0) return Status::Ok();
    INFERD_REQUIRE_ARG(copies);
    std::vector<inferd::MemoryCopy> work;
    work.reserve(count);
    for (uint32_t i = 0; i < count; ++i) {
      if (copies[i].byte_size > 0 && (copies[i].dst == nullptr || copies[i].src == nullptr)) {
        return Status::InvalidArg("copy " + std::to_string(i) + " of " + std::to_string(count) +
                                  " has a null source or destination");
      }
      work.push_back({copies[i].dst, copies[i].src, static_cast<size_t>(copies[i].byte_size)});
    }
    inferd::CopyWorkers* workers = ModelInstance::FromHandle(instance)->model()->copy_workers();
    if (workers != nullptr) {
      workers->Copy(work);
    } else {
      for (const inferd::MemoryCopy& copy : work) {
        if (copy.byte_size > 0) std::memcpy(copy.dst, copy.src, copy.byte_size);
      }
    }
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceSetExecuteOnAnyThread(INFERD_ModelInstance* instance,
                                                       bool allowed) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    ModelInstance::FromHandle(instance)->AllowExecuteOnAnyThread(allowed);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceReportComputeTimes(INFERD_ModelInstance* instance,
                                                     uint64_t compute_start_ns,
                                                     uint64_t compute_end_ns) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    if (compute_end_ns < compute_start_ns) {
      return Status::InvalidArg("compute end " + std::to_string(compute_end_ns) +
                                " is before compute start " + std::to_string(compute_start_ns));
    }
    ModelInstance::FromHandle(instance)->ReportComputeTimes(compute_start_ns, compute_end_ns);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceModel(INFERD_ModelInstance* instance, INFERD_Model** model) {
  return Read(instance, model,
              [&] { return ModelInstance::FromHandle(instance)->model()->handle(); });
}

INFERD_Error* INFERD_ModelInstanceSetState(INFERD_ModelInstance* instance, void* state) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    ModelInstance::FromHandle(instance)->state = state;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceState(INFERD_ModelInstance* instance, void** state) {
  return Read(instance, state, [&] { return ModelInstance::FromHandle(instance)->state; });
}

// --- Request

INFERD_Error* INFERD_RequestId(INFERD_Request* request, const char** id) {
  return Read(request, id, [&] { return Unwrap(request)->id.c_str(); });
}

INFERD_Error* INFERD_RequestCorrelationId(INFERD_Request* request, uint64_t* id) {
  return Read(request, id, [&] { return Unwrap(request)->correlation_id; });
}

INFERD_Error* INFERD_RequestCorrelationIdString(INFERD_Request* request, const char** id) {
  return Read(request, id, [&] { return Unwrap(request)->correlation_id_string.c_str(); });
}

INFERD_Error* INFERD_RequestFlags(INFERD_Request* request, uint32_t* flags) {
  return Read(request, flags, [&] { return Unwrap(request)->flags; });
}

INFERD_Error* INFERD_RequestInputCount(INFERD_Request* request, uint32_t* count) {
  return Read(request, count,
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
  return Read(request, count, [&] {
    const auto& outputs = Unwrap(request)->outputs;
    return static_cast<uint32_t>(outputs ? outputs->size() : 0);
  });
}

INFERD_Error* INFERD_RequestParameterCount(INFERD_Request* request, uint32_t* count) {
  return Read(request, count,
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
  return Read(request, cancelled, [&] { return Unwrap(request)->IsCancelled(); });
}

INFERD_Error* INFERD_RequestRelease(INFERD_Request* request, uint32_t flags) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    Unwrap(request)->ReleaseFromBackend();
    return Status::Ok();
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
