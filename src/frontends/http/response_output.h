// One output tensor of a server inference response, read through the server
// API: what both renderings of a response (KServe v2 /infer and the generate
// extension) start from. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_HTTP_RESPONSE_OUTPUT_H_
#define INFERD_FRONTENDS_HTTP_RESPONSE_OUTPUT_H_

#include <cstddef>
#include <cstdint>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// Every pointer lives as long as the response it was read from.
struct ResponseOutput {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  uint64_t dim_count = 0;
  const void* base = nullptr;
  size_t byte_size = 0;

  // The product of the dimensions (a negative one counts as 0).
  uint64_t ElementCount() const;
};

// Output `index` of `response`: the server's error, or UNSUPPORTED when the
// output lies in GPU memory, which the HTTP frontend cannot return yet.
Status ReadResponseOutput(INFERD_InferenceResponse* response, uint32_t index,
                          ResponseOutput* output);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_RESPONSE_OUTPUT_H_
