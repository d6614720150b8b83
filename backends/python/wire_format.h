// What lies in shared memory at the offsets control messages carry. All
// integers little-endian; every record starts 8-byte aligned; tensor data
// starts 64-byte aligned so the stub's numpy views of it are aligned.
// inferd_python_stub.py reads and writes the same layout (its struct formats
// are named after the records below); change both together.
//
// Batch block (backend -> stub, one per execute):
//   u32 request_count, u32 0
//   request_count x request:
//     u64 handle, u64 correlation_id, u32 flags, u32 input_count,
//     u32 output_count, u32 id_len, u32 params_len,
//     u32 correlation_len (a string correlation id's, 0 for a number),
//     u64 timeout_us (the client's, 0: none),
//     u32 trace_len (the request's W3C traceparent, 0: untraced), u32 0
//                                                              ("<QQIIIIIIQII")
//     id bytes, pad 8; parameters as a JSON object, pad 8;
//     the string correlation id, pad 8; the traceparent, pad 8
//     output_count x (u32 name_len, name bytes), pad 8
//     input_count x input:
//       u32 name_len, u32 datatype, u32 dim_count, u32 0,
//       u64 byte_size, u64 data_offset (from the region start)    ("<IIIIQQ")
//       dim_count x i64, name bytes, pad 8
//   then every input's data, each at a 64-byte boundary.
//
// Response block (stub -> backend, one per response, in the stub's ring):
//   u32 has_error, u32 error_code (INFERD_Error_Code), u32 error_len,
//   u32 output_count                                              ("<IIII")
//   error bytes, pad 8
//   output_count x output:
//     u32 name_len, u32 datatype, u32 dim_count, u32 0, u64 byte_size  ("<IIIIQ")
//     dim_count x i64, name bytes, pad 8, data bytes, pad 8
// The same response block also carries the responses of the stub's own
// requests (BLS) back to it, written by the backend.
//
// BLS request block (stub -> backend, a request the model sends to a model):
//   u32 model_len, u32 input_count, u32 output_count, u32 id_len,
//   u32 params_len, u32 flags, u32 correlation_len (as in a request),
//   u32 options (kBlsSingleResponse: exec() without decoupled=True),
//   i64 version, u64 correlation_id, u64 timeout_us,
//   u32 trace_len (the parent's traceparent: InferenceRequest(trace=...)), u32 0
//                                                          ("<IIIIIIIIqQQII")
//   model name, pad 8; id, pad 8; parameters JSON, pad 8;
//   the string correlation id, pad 8; the traceparent, pad 8
//   output_count x (u32 name_len, name bytes), pad 8
//   input_count x a record laid out as a response block's output
// BYTES tensors hold Triton's serialization: each element a u32 length and
// its bytes.
#ifndef INFERD_BACKENDS_PYTHON_WIRE_FORMAT_H_
#define INFERD_BACKENDS_PYTHON_WIRE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inferd/base/status.h"

namespace inferd::python {

struct InputView {
  std::string_view name;
  uint32_t datatype = 0;  // INFERD_DataType
  std::vector<int64_t> shape;
  uint64_t byte_size = 0;
  std::vector<std::pair<const void*, uint64_t>> buffers;  // concatenated in order
};

struct RequestView {
  uint64_t handle = 0;
  uint64_t correlation_id = 0;
  std::string_view correlation_id_string;  // a string sequence id; "" for a number
  uint32_t flags = 0;
  uint64_t timeout_us = 0;  // the client's timeout, for request.timeout()
  std::string_view id;
  std::string_view traceparent;  // "" unless traced in opentelemetry mode
  std::string parameters_json = "{}";
  std::vector<std::string_view> outputs;
  std::vector<InputView> inputs;
};

// The bytes WriteBatchBlock will write for `requests`.
uint64_t BatchBlockSize(const std::vector<RequestView>& requests);
// Writes the batch block at `dst`, which lies at `block_offset` in the region
// (data offsets are written from the region's start).
void WriteBatchBlock(const std::vector<RequestView>& requests, char* dst, uint64_t block_offset);

struct OutputView {
  std::string_view name;
  uint32_t datatype = 0;
  std::vector<int64_t> shape;
  const char* data = nullptr;
  uint64_t byte_size = 0;
};

struct ResponseView {
  bool has_error = false;
  uint32_t error_code = 0;
  std::string_view error;
  std::vector<OutputView> outputs;
};

// The bytes WriteResponseBlock will write for `response`.
uint64_t ResponseBlockSize(const ResponseView& response);
// Writes `response` as a response block at `dst`.
void WriteResponseBlock(const ResponseView& response, char* dst);

// BLS request options.
constexpr uint32_t kBlsSingleResponse = 1;  // one response expected: a decoupled model refuses

struct BlsRequestView {
  std::string_view model;
  int64_t version = -1;
  std::string_view id;
  uint64_t correlation_id = 0;
  std::string_view correlation_id_string;  // set: a string sequence id (not the number)
  uint32_t flags = 0;
  uint32_t options = 0;  // kBls* bits
  uint64_t timeout_us = 0;
  std::string_view traceparent;  // the parent request's, as request.trace() gave it
  std::string_view parameters_json;
  std::vector<std::string_view> outputs;
  std::vector<OutputView> inputs;  // data points into the block
};

// Reads a BLS request block, checked as ParseResponseBlock is.
Status ParseBlsRequest(const char* block, uint64_t size, BlsRequestView* request);

// Reads a response block of `size` bytes. Every length is checked against the
// block, so a broken stub yields an INTERNAL error, never a read outside it.
Status ParseResponseBlock(const char* block, uint64_t size, ResponseView* response);

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_WIRE_FORMAT_H_
