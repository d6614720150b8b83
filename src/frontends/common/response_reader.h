// A server inference response read through the server API: its model, id and
// outputs, what every rendering of it (gRPC's ModelInferResponse, HTTP's
// /infer JSON and the generate extension's) starts from. Thread-safe (no
// shared state).
#ifndef INFERD_FRONTENDS_COMMON_RESPONSE_READER_H_
#define INFERD_FRONTENDS_COMMON_RESPONSE_READER_H_

#include <cstddef>
#include <cstdint>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

// Every pointer lives as long as the response it was read from.
struct ResponseSummary {
  const char* model_name = nullptr;
  int64_t model_version = -1;
  const char* id = nullptr;
  uint32_t output_count = 0;
};

// The response's own error (the model's failure), else its summary.
Status ReadResponseSummary(INFERD_InferenceResponse* response, ResponseSummary* summary);

// Every pointer lives as long as the response it was read from.
struct ResponseOutput {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  uint64_t dim_count = 0;
  const void* base = nullptr;
  size_t byte_size = 0;
  void* buffer_userp = nullptr;  // the allocator's, for this buffer

  // The product of the dimensions (a negative one counts as 0).
  uint64_t ElementCount() const;
};

// Output `index` of `response`: the server's error, or UNSUPPORTED when the
// output lies in GPU memory, which neither frontend can return yet (the
// message names `frontend`, "HTTP" or "gRPC").
Status ReadResponseOutput(INFERD_InferenceResponse* response, uint32_t index,
                          const char* frontend, ResponseOutput* output);

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_RESPONSE_READER_H_
