// Parses a KServe v2 infer request body (JSON, optionally followed by binary
// tensor data) into a ParsedInferRequest: inputs with their data located (a
// slice of the body, or a buffer decoded from JSON), requested outputs and how
// to return them, and request parameters. Knows nothing of the server API
// beyond datatypes, so it can be tested alone. Not thread-safe; one per request.
#ifndef INFERD_FRONTENDS_HTTP_INFER_REQUEST_PARSER_H_
#define INFERD_FRONTENDS_HTTP_INFER_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/fwd.h>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// Every `const char*` below is NUL-terminated and points into the request body
// (strings are unescaped in place), so the body must outlive the request.

// Where a tensor lives in a registered system shared memory region (the
// shared_memory_region, _offset and _byte_size parameters).
struct SharedMemoryRef {
  std::string region;  // empty: the tensor is not in shared memory
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

struct ParsedInput {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> shape;
  // Into the body, ParsedInferRequest::decoded, or (once the frontend has
  // located `shared_memory`) a shared memory region; null until then.
  const char* data = nullptr;
  size_t byte_size = 0;
  SharedMemoryRef shared_memory;
};

// An output the request names, and whether it is to be returned as binary data
// or written into shared memory.
struct ParsedOutput {
  std::string name;  // owned: it outlives the body, which is freed on release
  bool binary = false;
  SharedMemoryRef shared_memory;
  uint32_t class_count = 0;  // > 0: the "classification" parameter
};

// A request parameter passed through to the model.
struct ParsedParameter {
  enum class Kind { kString, kInt, kBool, kDouble };
  const char* name = nullptr;
  Kind kind = Kind::kString;
  const char* string_value = nullptr;
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;
};

struct ParsedInferRequest {
  const char* id = nullptr;  // null when the request has none
  std::vector<ParsedInput> inputs;
  std::vector<ParsedOutput> outputs;  // empty: every output the model has
  bool binary_data_output = false;    // how outputs not named above are returned
  // sequence_id, as a number or as a string (at most one is set).
  std::optional<uint64_t> sequence_id;
  const char* sequence_id_string = nullptr;
  uint32_t flags = 0;  // INFERD_REQUEST_FLAG_SEQUENCE_START / _END
  uint32_t priority = 0;
  uint64_t timeout_us = 0;
  std::vector<ParsedParameter> parameters;
  std::vector<std::unique_ptr<char[]>> decoded;  // tensor data decoded from JSON
};

// Parses `body`, `body_size` bytes followed by a NUL (std::string provides it),
// of which the first `json_size` are the JSON request (all of them without the
// binary extension). Rewrites the JSON part in place. Errors are INVALID_ARG
// (malformed JSON, missing or mistyped fields, data that does not fit the
// shape, binary sizes that do not add up), naming the input or field, or
// Tensors in shared
// memory are only described: the caller locates their region.
Status ParseInferRequest(char* body, size_t body_size, size_t json_size, ParsedInferRequest* out);

// Appends the custom request parameter `name` (a string, a boolean, or a
// number that fits a 64-bit integer or a double) to out->parameters; false,
// adding nothing, for any other JSON value. Both /infer and /generate use it.
bool AddCustomParameter(const char* name, const rapidjson::Value& value, ParsedInferRequest* out);

// The number of elements `shape` holds; INVALID_ARG naming `input_name` for a
// negative dimension or an overflowing product.
Status ShapeElementCount(const std::vector<int64_t>& shape, const char* input_name,
                         uint64_t* count);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_INFER_REQUEST_PARSER_H_
