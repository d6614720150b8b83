// INFERD_InferenceResponse -> ModelInferResponse, outputs already in place.
#include "grpc/infer_response_builder.h"

#include <string>

#include "common/output_allocator.h"
#include "common/server_error.h"

namespace inferd::grpc_frontend {
namespace {

using inference::ModelInferResponse;

// Moves the raw entry holding output `index` to position `index`: the one the
// allocator made (`buffer_userp`), an empty one for an output in shared
// memory, or a copy of `base` when there is none.
void PlaceRawOutput(int index, const void* buffer_userp, const void* base, size_t byte_size,
                    bool in_shared_memory, ModelInferResponse* message) {
  auto* raw = message->mutable_raw_output_contents();
  if (!in_shared_memory) {
    for (int j = index; j < raw->size(); ++j) {
      if (&raw->Get(j) == buffer_userp) {
        if (j != index) raw->SwapElements(index, j);
        return;
      }
    }
  }
  std::string* entry = raw->Add();
  if (!in_shared_memory) entry->assign(static_cast<const char*>(base), byte_size);
  for (int j = raw->size() - 1; j > index; --j) raw->SwapElements(j, j - 1);
}

void SetSharedMemoryParameters(const SharedMemoryOutput& target, size_t byte_size,
                               ModelInferResponse::InferOutputTensor* output) {
  auto& parameters = *output->mutable_parameters();
  parameters["shared_memory_region"].set_string_param(target.region);
  parameters["shared_memory_byte_size"].set_int64_param(static_cast<int64_t>(byte_size));
  if (target.slice.offset != 0) {
    parameters["shared_memory_offset"].set_int64_param(static_cast<int64_t>(target.slice.offset));
  }
}

// Adds output `index`; *in_shared_memory tells whether it went there.
Status AddOutput(INFERD_InferenceResponse* response, uint32_t index,
                 const OutputDestination& destination, bool* in_shared_memory) {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  uint64_t dim_count = 0;
  const void* base = nullptr;
  size_t byte_size = 0;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  void* buffer_userp = nullptr;
  if (Status s = StatusFromServerError(INFERD_InferenceResponseOutput(
          response, index, &name, &datatype, &shape, &dim_count, &base, &byte_size, &memory_type,
          &memory_type_id, &buffer_userp));
      !s.ok()) {
    return s;
  }
  if (memory_type == INFERD_MEMORY_GPU) {
    return Status::Unsupported("output '" + std::string(name) +
                               "' is in GPU memory, which the gRPC frontend cannot return yet");
  }
  ModelInferResponse* message = destination.message;
  ModelInferResponse::InferOutputTensor* output = message->add_outputs();
  output->set_name(name);
  output->set_datatype(INFERD_DataTypeString(datatype));
  output->mutable_shape()->Add(shape, shape + dim_count);
  const SharedMemoryOutput* target = destination.shared_memory.Find(name);
  *in_shared_memory = target != nullptr && IsSharedMemoryBuffer(buffer_userp);
  if (*in_shared_memory) SetSharedMemoryParameters(*target, byte_size, output);
  PlaceRawOutput(static_cast<int>(index), buffer_userp, base, byte_size, *in_shared_memory,
                 message);
  return Status::Ok();
}

Status Fill(INFERD_InferenceResponse* response, const OutputDestination& destination) {
  ModelInferResponse* message = destination.message;
  if (Status s = StatusFromBorrowedError(INFERD_InferenceResponseError(response)); !s.ok()) {
    return s;
  }
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
  message->set_model_name(model_name != nullptr ? model_name : "");
  message->set_model_version(std::to_string(model_version));
  if (id != nullptr) message->set_id(id);
  for (uint32_t i = 0; i < output_count; ++i) {
    bool in_shared_memory = false;
    if (Status s = AddOutput(response, i, destination, &in_shared_memory); !s.ok()) {
      return s;
    }
  }
  // Entries allocated for outputs the response does not carry. Every output
  // keeps one, empty when it is in shared memory: Triton's C++ client
  // (perf_analyzer's) reads raw_output_contents by output index.
  auto* raw = message->mutable_raw_output_contents();
  while (raw->size() > static_cast<int>(output_count)) raw->RemoveLast();
  return Status::Ok();
}

}  // namespace

Status BuildInferResponse(INFERD_InferenceResponse* response,
                          const OutputDestination& destination) {
  Status status = Fill(response, destination);
  if (!status.ok()) destination.message->Clear();
  return status;
}

}  // namespace inferd::grpc_frontend
