// Reading one output of a server inference response.
#include "http/response_output.h"

#include <string>

#include "common/server_error.h"

namespace inferd::http {

uint64_t ResponseOutput::ElementCount() const {
  uint64_t count = 1;
  for (uint64_t i = 0; i < dim_count; ++i) {
    count *= shape[i] < 0 ? 0 : static_cast<uint64_t>(shape[i]);
  }
  return count;
}

Status ReadResponseOutput(INFERD_InferenceResponse* response, uint32_t index,
                          ResponseOutput* output) {
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  void* buffer_userp = nullptr;
  RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceResponseOutput(
      response, index, &output->name, &output->datatype, &output->shape, &output->dim_count,
      &output->base, &output->byte_size, &memory_type, &memory_type_id, &buffer_userp)));
  if (memory_type == INFERD_MEMORY_GPU) {
    return Status::Unsupported("output '" + std::string(output->name) +
                               "' is in GPU memory, which the HTTP frontend cannot return yet");
  }
  return Status::Ok();
}

}  // namespace inferd::http
