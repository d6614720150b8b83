#include "bls_call.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "backend_io.h"

namespace inferd::python {

namespace {

struct BlsCall {
  BlsSink* sink = nullptr;
  uint64_t id = 0;
  uint64_t generation = 0;
  std::vector<char> inputs;  // the inputs' data, alive until the release
  INFERD_InferenceRequest* request = nullptr;
};

INFERD_Error* Allocate(INFERD_ResponseAllocator*, const char*, size_t byte_size,
                       INFERD_MemoryType, int64_t, void*, void** buffer, void** buffer_userp,
                       INFERD_MemoryType* memory_type, int64_t* memory_type_id) {
  *buffer = byte_size > 0 ? std::malloc(byte_size) : nullptr;
  *buffer_userp = nullptr;
  *memory_type = INFERD_MEMORY_CPU;
  *memory_type_id = 0;
  if (byte_size > 0 && *buffer == nullptr) {
    return INFERD_ErrorNew(INFERD_ERROR_INTERNAL, "out of memory for a BLS response");
  }
  return nullptr;
}

INFERD_Error* Release(INFERD_ResponseAllocator*, void* buffer, void*, size_t, INFERD_MemoryType,
                      int64_t) {
  std::free(buffer);
  return nullptr;
}

// One allocator for every call, alive as long as the library.
INFERD_ResponseAllocator* HeapAllocator() {
  static INFERD_ResponseAllocator* allocator = [] {
    INFERD_ResponseAllocator* a = nullptr;
    INFERD_ErrorDelete(INFERD_ResponseAllocatorNew(&a, Allocate, Release));
    return a;
  }();
  return allocator;
}

void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  auto* call = static_cast<BlsCall*>(userp);
  const bool final = (flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0;
  if (response == nullptr) {
    call->sink->OnBlsResponse(call->id, call->generation, nullptr, final);
    return;
  }
  ResponseView view;
  std::string error_text;
  if (INFERD_Error* error = INFERD_InferenceResponseError(response)) {
    view.has_error = true;
    view.error_code = static_cast<uint32_t>(INFERD_ErrorCode(error));
    error_text = INFERD_ErrorMessage(error);
  } else {
    uint32_t count = 0;
    INFERD_ErrorDelete(INFERD_InferenceResponseOutputCount(response, &count));
    view.outputs.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      OutputView& out = view.outputs[i];
      const char* name = nullptr;
      INFERD_DataType datatype;
      const int64_t* shape = nullptr;
      uint64_t dims = 0;
      const void* base = nullptr;
      size_t size = 0;
      INFERD_MemoryType memory_type;
      int64_t memory_type_id;
      void* userp_out = nullptr;
      if (INFERD_Error* err = INFERD_InferenceResponseOutput(
              response, i, &name, &datatype, &shape, &dims, &base, &size, &memory_type,
              &memory_type_id, &userp_out)) {
        view.has_error = true;
        view.error_code = INFERD_ERROR_INTERNAL;
        error_text = INFERD_ErrorMessage(err);
        INFERD_ErrorDelete(err);
        break;
      }
      out.name = name;
      out.datatype = datatype;
      out.shape.assign(shape, shape + dims);
      out.data = static_cast<const char*>(base);
      out.byte_size = size;
    }
  }
  view.error = error_text;
  call->sink->OnBlsResponse(call->id, call->generation, &view, final);
  INFERD_ErrorDelete(INFERD_InferenceResponseDelete(response));
}

void OnRelease(INFERD_InferenceRequest* request, uint32_t flags, void* userp) {
  if ((flags & INFERD_REQUEST_RELEASE_ALL) == 0) return;
  std::unique_ptr<BlsCall> call(static_cast<BlsCall*>(userp));
  INFERD_ErrorDelete(INFERD_InferenceRequestDelete(request));
  call->sink->OnBlsReleased();
}

// The model's parameters (a JSON object) as typed request parameters.
Status SetParameters(INFERD_InferenceRequest* request, std::string_view json) {
  if (json.empty()) return Status::Ok();
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (!doc.IsObject()) return Status::InvalidArg("BLS request parameters must be a JSON object");
  for (const auto& member : doc.GetObject()) {
    const char* name = member.name.GetString();
    const auto& value = member.value;
    Status s;
    if (value.IsString()) {
      s = FromError(INFERD_InferenceRequestSetStringParameter(request, name, value.GetString()));
    } else if (value.IsBool()) {
      s = FromError(INFERD_InferenceRequestSetBoolParameter(request, name, value.GetBool()));
    } else if (value.IsInt64()) {
      s = FromError(INFERD_InferenceRequestSetIntParameter(request, name, value.GetInt64()));
    } else if (value.IsNumber()) {
      s = FromError(INFERD_InferenceRequestSetDoubleParameter(request, name, value.GetDouble()));
    } else {
      s = Status::InvalidArg("BLS request parameter '" + std::string(name) +
                             "' must be a string, a number or a boolean");
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

// The request's id, sequence id and flags, timeout, and whether one response
// is expected.
Status SetHeader(INFERD_InferenceRequest* request, const BlsRequestView& view) {
  const std::string id(view.id);
  if (!id.empty()) {
    if (Status s = FromError(INFERD_InferenceRequestSetId(request, id.c_str())); !s.ok()) return s;
  }
  // A sequence id is a number or a string (pb_utils.InferenceRequest(correlation_id=...)).
  const Status correlated =
      view.correlation_id_string.empty()
          ? FromError(INFERD_InferenceRequestSetCorrelationId(request, view.correlation_id))
          : FromError(INFERD_InferenceRequestSetCorrelationIdString(
                request, std::string(view.correlation_id_string).c_str()));
  if (!correlated.ok()) return correlated;
  if (Status s = FromError(INFERD_InferenceRequestSetFlags(request, view.flags)); !s.ok()) return s;
  if (view.timeout_us > 0) {
    if (Status s = FromError(INFERD_InferenceRequestSetTimeoutMicroseconds(request, view.timeout_us));
        !s.ok()) {
      return s;
    }
  }
  if (!view.traceparent.empty()) {
    if (Status s = FromError(INFERD_InferenceRequestSetTraceContext(
            request, std::string(view.traceparent).c_str(), nullptr));
        !s.ok()) {
      return s;
    }
  }
  // exec() without decoupled=True: as Triton, a decoupled model is refused.
  return FromError(INFERD_InferenceRequestSetSingleResponse(
      request, (view.options & kBlsSingleResponse) != 0));
}

Status Build(const BlsRequestView& view, BlsCall* call) {
  INFERD_InferenceRequest* request = call->request;
  if (Status s = SetHeader(request, view); !s.ok()) return s;
  if (Status s = SetParameters(request, view.parameters_json); !s.ok()) return s;
  uint64_t total = 0;
  for (const auto& input : view.inputs) total += input.byte_size;
  call->inputs.resize(total);
  uint64_t at = 0;
  for (const auto& input : view.inputs) {
    const std::string name(input.name);
    if (Status s = FromError(INFERD_InferenceRequestAddInput(
            request, name.c_str(), static_cast<INFERD_DataType>(input.datatype),
            input.shape.data(), input.shape.size()));
        !s.ok()) {
      return s;
    }
    if (input.byte_size > 0) std::memcpy(call->inputs.data() + at, input.data, input.byte_size);
    if (Status s = FromError(INFERD_InferenceRequestAppendInputData(
            request, name.c_str(), call->inputs.data() + at, input.byte_size, INFERD_MEMORY_CPU,
            0));
        !s.ok()) {
      return s;
    }
    at += input.byte_size;
  }
  for (const auto& output : view.outputs) {
    const std::string name(output);
    if (Status s = FromError(INFERD_InferenceRequestAddRequestedOutput(request, name.c_str()));
        !s.ok()) {
      return s;
    }
  }
  if (Status s = FromError(INFERD_InferenceRequestSetReleaseCallback(request, OnRelease, call));
      !s.ok()) {
    return s;
  }
  return FromError(INFERD_InferenceRequestSetResponseCallback(request, HeapAllocator(), nullptr,
                                                              OnResponse, call));
}

}  // namespace

Status SubmitBls(INFERD_Server* server, const BlsRequestView& view, uint64_t id,
                 uint64_t generation, BlsSink* sink) {
  auto call = std::make_unique<BlsCall>();
  call->sink = sink;
  call->id = id;
  call->generation = generation;
  const std::string model(view.model);
  if (Status s = FromError(INFERD_InferenceRequestNew(&call->request, server, model.c_str(),
                                                      view.version));
      !s.ok()) {
    return s;
  }
  Status s = Build(view, call.get());
  if (s.ok()) s = FromError(INFERD_ServerInferAsync(server, call->request));
  if (s.code() == Status::Code::kUnsupported && (view.options & kBlsSingleResponse) != 0) {
    // The only refusal of a single-response request at submission: the
    // server's advice (streaming endpoints) is a client's, not a model's.
    s = Status::Unsupported("model '" + model +
                            "' is decoupled (model_transaction_policy { decoupled: true }): "
                            "call exec(decoupled=True) or async_exec(decoupled=True) to read "
                            "its responses");
  }
  if (!s.ok()) {
    INFERD_ErrorDelete(INFERD_InferenceRequestDelete(call->request));
    return s;
  }
  call.release();  // the release callback owns it now
  return Status::Ok();
}

}  // namespace inferd::python
