// C ABI: reading inference responses (server.h).
#include "core/api/error.h"
#include "core/infer/inference_response.h"

using inferd::GuardedCall;
using inferd::InferenceResponse;
using inferd::Status;

namespace {

InferenceResponse* Unwrap(INFERD_InferenceResponse* response) {
  return reinterpret_cast<InferenceResponse*>(response);
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_InferenceResponseDelete(INFERD_InferenceResponse* response) {
  delete Unwrap(response);
  return nullptr;
}

INFERD_Error* INFERD_InferenceResponseError(INFERD_InferenceResponse* response) {
  return response ? Unwrap(response)->c_error() : nullptr;
}

INFERD_Error* INFERD_InferenceResponseId(INFERD_InferenceResponse* response, const char** id) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(id);
    *id = Unwrap(response)->id().c_str();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceResponseModel(INFERD_InferenceResponse* response,
                                            const char** model_name, int64_t* model_version) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(model_name);
    INFERD_REQUIRE_ARG(model_version);
    *model_name = Unwrap(response)->model_name().c_str();
    *model_version = Unwrap(response)->model_version();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceResponseTraceParent(INFERD_InferenceResponse* response,
                                                 const char** traceparent) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(traceparent);
    *traceparent = Unwrap(response)->traceparent().c_str();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceResponseOutputCount(INFERD_InferenceResponse* response,
                                                  uint32_t* count) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    INFERD_REQUIRE_ARG(count);
    *count = static_cast<uint32_t>(Unwrap(response)->outputs().size());
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceResponseOutput(INFERD_InferenceResponse* response, uint32_t index,
                                             const char** name, INFERD_DataType* datatype,
                                             const int64_t** shape, uint64_t* dim_count,
                                             const void** base, size_t* byte_size,
                                             INFERD_MemoryType* memory_type,
                                             int64_t* memory_type_id, void** buffer_userp) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(response);
    const auto& outputs = Unwrap(response)->outputs();
    if (index >= outputs.size()) {
      return Status::InvalidArg("output index " + std::to_string(index) + " is out of range (" +
                                std::to_string(outputs.size()) + " outputs)");
    }
    const inferd::OutputTensor& output = *outputs[index];
    if (name) *name = output.name.c_str();
    if (datatype) *datatype = output.datatype;
    if (shape) *shape = output.shape.data();
    if (dim_count) *dim_count = output.shape.size();
    if (base) *base = output.buffer;
    if (byte_size) *byte_size = output.byte_size;
    if (memory_type) *memory_type = output.memory_type;
    if (memory_type_id) *memory_type_id = output.memory_type_id;
    if (buffer_userp) *buffer_userp = output.buffer_userp;
    return Status::Ok();
  });
}

}  // extern "C"
