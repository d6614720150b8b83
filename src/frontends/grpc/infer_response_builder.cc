// INFERD_InferenceResponse -> ModelInferResponse, outputs already in place.
#include "frontends/grpc/infer_response_builder.h"

#include <string>

#include "frontends/grpc/grpc_status.h"

namespace inferd::grpc_frontend {
namespace {

using inference::ModelInferResponse;

// Moves the raw entry holding output `index` to position `index`: the one the
// allocator made (`buffer_userp`), or a copy of `base` when there is none.
void PlaceRawOutput(int index, const void* buffer_userp, const void* base, size_t byte_size,
                    ModelInferResponse* message) {
  auto* raw = message->mutable_raw_output_contents();
  for (int j = index; j < raw->size(); ++j) {
    if (&raw->Get(j) == buffer_userp) {
      if (j != index) raw->SwapElements(index, j);
      return;
    }
  }
  raw->Add()->assign(static_cast<const char*>(base), byte_size);
  for (int j = raw->size() - 1; j > index; --j) raw->SwapElements(j, j - 1);
}

grpc::Status AddOutput(INFERD_InferenceResponse* response, uint32_t index,
                       ModelInferResponse* message) {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  uint64_t dim_count = 0;
  const void* base = nullptr;
  size_t byte_size = 0;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  void* buffer_userp = nullptr;
  if (grpc::Status s = StatusFromServerError(INFERD_InferenceResponseOutput(
          response, index, &name, &datatype, &shape, &dim_count, &base, &byte_size, &memory_type,
          &memory_type_id, &buffer_userp));
      !s.ok()) {
    return s;
  }
  if (memory_type == INFERD_MEMORY_GPU) {
    return Unimplemented("output '" + std::string(name) +
                         "' is in GPU memory, which the gRPC frontend cannot return yet");
  }
  ModelInferResponse::InferOutputTensor* output = message->add_outputs();
  output->set_name(name);
  output->set_datatype(INFERD_DataTypeString(datatype));
  output->mutable_shape()->Add(shape, shape + dim_count);
  PlaceRawOutput(static_cast<int>(index), buffer_userp, base, byte_size, message);
  return grpc::Status::OK;
}

grpc::Status Fill(INFERD_InferenceResponse* response, ModelInferResponse* message) {
  if (grpc::Status s = StatusFromBorrowedError(INFERD_InferenceResponseError(response)); !s.ok()) {
    return s;
  }
  const char* model_name = nullptr;
  int64_t model_version = -1;
  const char* id = nullptr;
  uint32_t output_count = 0;
  if (grpc::Status s = StatusFromServerError(
          INFERD_InferenceResponseModel(response, &model_name, &model_version));
      !s.ok()) {
    return s;
  }
  if (grpc::Status s = StatusFromServerError(INFERD_InferenceResponseId(response, &id)); !s.ok()) {
    return s;
  }
  if (grpc::Status s =
          StatusFromServerError(INFERD_InferenceResponseOutputCount(response, &output_count));
      !s.ok()) {
    return s;
  }
  message->set_model_name(model_name != nullptr ? model_name : "");
  message->set_model_version(std::to_string(model_version));
  if (id != nullptr) message->set_id(id);
  for (uint32_t i = 0; i < output_count; ++i) {
    if (grpc::Status s = AddOutput(response, i, message); !s.ok()) return s;
  }
  // Entries allocated for outputs the response does not carry.
  auto* raw = message->mutable_raw_output_contents();
  while (raw->size() > static_cast<int>(output_count)) raw->RemoveLast();
  return grpc::Status::OK;
}

}  // namespace

grpc::Status BuildInferResponse(INFERD_InferenceResponse* response,
                                ModelInferResponse* message) {
  grpc::Status status = Fill(response, message);
  if (!status.ok()) message->Clear();
  return status;
}

}  // namespace inferd::grpc_frontend
