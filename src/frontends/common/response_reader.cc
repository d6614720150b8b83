#include "common/response_reader.h"

#include <string>

#include "common/server_error.h"

namespace inferd {

Status ReadResponseSummary(INFERD_InferenceResponse* response, ResponseSummary* summary) {
  // Owned by the response: copied, not freed.
  RETURN_IF_ERROR(StatusFromBorrowedError(INFERD_InferenceResponseError(response)));
  RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceResponseModel(
      response, &summary->model_name, &summary->model_version)));
  RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceResponseId(response, &summary->id)));
  return StatusFromServerError(
      INFERD_InferenceResponseOutputCount(response, &summary->output_count));
}

uint64_t ResponseOutput::ElementCount() const {
  uint64_t count = 1;
  for (uint64_t i = 0; i < dim_count; ++i) {
    count *= shape[i] < 0 ? 0 : static_cast<uint64_t>(shape[i]);
  }
  return count;
}

Status ReadResponseOutput(INFERD_InferenceResponse* response, uint32_t index,
                          const char* frontend, ResponseOutput* output) {
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceResponseOutput(
      response, index, &output->name, &output->datatype, &output->shape, &output->dim_count,
      &output->base, &output->byte_size, &memory_type, &memory_type_id, &output->buffer_userp)));
  if (memory_type == INFERD_MEMORY_GPU) {
    return Status::Unsupported("output '" + std::string(output->name) + "' is in GPU memory, " +
                               "which the " + frontend + " frontend cannot return yet");
  }
  return Status::Ok();
}

}  // namespace inferd
