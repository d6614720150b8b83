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
// gives INVALID_ARG naming the input.
Status JsonToTensor(const rapidjson::Value& data, INFERD_DataType datatype, uint64_t element_count,
                    std::string_view input_name, TensorBytes* out);

// Writes the `byte_size` bytes at `base`, `element_count` elements of
// `datatype`, as a flat JSON array. A size that does not fit the count, or a
// malformed BYTES element, gives INTERNAL naming the output.
Status TensorToJson(const void* base, size_t byte_size, INFERD_DataType datatype,
                    uint64_t element_count, std::string_view output_name, JsonWriter* writer);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_TENSOR_JSON_H_
