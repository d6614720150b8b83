// Typed tensor data of the gRPC protocol (InferTensorContents) -> the raw
// tensor layout the server takes: BOOL as one byte, numbers little-endian at
// their native size, BYTES as a 4-byte little-endian length then the bytes.
// Each datatype has one contents field (BOOL bool_contents; INT8/16/32
// int_contents; INT64 int64_contents; UINT8/16/32 uint_contents; UINT64
// uint64_contents; FP32 fp32_contents; FP64 fp64_contents; BYTES
// bytes_contents); FP16 and BF16, which have none in the protocol, are taken
// from fp32_contents. Where the field's memory already is the raw layout it is
// borrowed, not copied. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_TENSOR_CONTENTS_H_
#define INFERD_FRONTENDS_GRPC_TENSOR_CONTENTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// A tensor's raw bytes: borrowed from the message or from an owned buffer.
struct TensorData {
  const void* base = nullptr;
  size_t byte_size = 0;
};

// Locates the data of input `input_name` in `contents`: `element_count`
// elements of `datatype`. Converted data goes into a new buffer appended to
// *owned, which (like `contents`) must outlive the returned TensorData.
// INVALID_ARG naming the input when another field than the datatype's is
// set, the element count differs, or a value does not fit the datatype.
Status ContentsToTensor(const inference::InferTensorContents& contents,
                        INFERD_DataType datatype, uint64_t element_count,
                        std::string_view input_name,
                        std::vector<std::unique_ptr<char[]>>* owned, TensorData* out);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_TENSOR_CONTENTS_H_
