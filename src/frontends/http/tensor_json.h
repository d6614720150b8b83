// Tensor data <-> JSON "data" arrays of the KServe v2 protocol, per datatype.
// Decoding accepts nested arrays (row-major) or a flat array and produces the
// binary tensor layout: BOOL as one byte, numbers little-endian at their native
// size (FP16 and BF16 converted from JSON numbers), BYTES as a 4-byte
// little-endian length followed by the bytes, per element. Encoding writes a
// flat JSON array. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_HTTP_TENSOR_JSON_H_
#define INFERD_FRONTENDS_HTTP_TENSOR_JSON_H_

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// The JSON writer every response uses: NaN and infinities are written as
// NaN / Infinity / -Infinity, which Python's json module reads back.
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                     rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;

// Tensor bytes decoded from JSON; owns its memory.
struct TensorBytes {
  std::unique_ptr<char[]> data;
  size_t byte_size = 0;
};

// Decodes the "data" value of input `input_name`. The number of elements must
// equal `element_count` (from the shape); a count mismatch, a value of the
// wrong JSON type or out of the datatype's range, or nesting deeper than 64
// gives INVALID_ARG naming the input. A value that is not an array is one
// element. `field` names the value in messages (the generate extension has
// no "data" field: its inputs are values of keys).
Status JsonToTensor(const rapidjson::Value& data, INFERD_DataType datatype, uint64_t element_count,
                    std::string_view input_name, TensorBytes* out,
                    std::string_view field = "'data'");

// The number of elements (non-array values) `data` holds, at any nesting;
// INVALID_ARG naming input `input_name` when it is nested deeper than 64.
Status CountJsonElements(const rapidjson::Value& data, std::string_view input_name,
                         uint64_t* count);

// Writes the `byte_size` bytes at `base`, `element_count` elements of
// `datatype`, as a flat JSON array, or, when `unwrap_single` and the tensor
// holds one element, as that bare value (the generate extension's rule). A
// size that does not fit the count, or a malformed BYTES element, gives
// INTERNAL naming the output.
Status TensorToJson(const void* base, size_t byte_size, INFERD_DataType datatype,
                    uint64_t element_count, std::string_view output_name, JsonWriter* writer,
                    bool unwrap_single = false);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_TENSOR_JSON_H_
