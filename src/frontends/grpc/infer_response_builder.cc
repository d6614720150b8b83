// INFERD_InferenceResponse -> ModelInferResponse, outputs already in place.
#include "grpc/infer_response_builder.h"

#include <string>

#include "common/output_allocator.h"
#include "common/response_reader.h"

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

// Adds output `index`.
Status AddOutput(INFERD_InferenceResponse* response, uint32_t index,
                 const OutputDestination& destination) {
  ResponseOutput read;
  RETURN_IF_ERROR(ReadResponseOutput(response, index, "gRPC", &read));
  ModelInferResponse* message = destination.message;
  ModelInferResponse::InferOutputTensor* output = message->add_outputs();
  output->set_name(read.name);
  output->set_datatype(INFERD_DataTypeString(read.datatype));
  output->mutable_shape()->Add(read.shape, read.shape + read.dim_count);
  const SharedMemoryOutput* target = destination.shared_memory.Find(read.name);
  const bool in_shared_memory = target != nullptr && IsSharedMemoryBuffer(read.buffer_userp);
  if (in_shared_memory) SetSharedMemoryParameters(*target, read.byte_size, output);
  PlaceRawOutput(static_cast<int>(index), read.buffer_userp, read.base, read.byte_size,
                 in_shared_memory, message);
  return Status::Ok();
}

Status Fill(INFERD_InferenceResponse* response, const OutputDestination& destination) {
  ModelInferResponse* message = destination.message;
  ResponseSummary summary;
  RETURN_IF_ERROR(ReadResponseSummary(response, &summary));
  message->set_model_name(summary.model_name != nullptr ? summary.model_name : "");
  message->set_model_version(std::to_string(summary.model_version));
  if (summary.id != nullptr) message->set_id(summary.id);
  for (uint32_t i = 0; i < summary.output_count; ++i) {
    RETURN_IF_ERROR(AddOutput(response, i, destination));
  }
  // Entries allocated for outputs the response does not carry. Every output
  // keeps one, empty when it is in shared memory: Triton's C++ client
  // (perf_analyzer's) reads raw_output_contents by output index.
  auto* raw = message->mutable_raw_output_contents();
  while (raw->size() > static_cast<int>(summary.output_count)) raw->RemoveLast();
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
