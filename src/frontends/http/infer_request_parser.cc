// KServe v2 infer request body -> ParsedInferRequest.
#include "http/infer_request_parser.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstring>
#include <limits>
#include <string_view>

#include "http/binary_section.h"
#include "http/exact_json.h"
#include "http/parse_buffers.h"
#include "http/tensor_json.h"

namespace inferd::http {
namespace {

using rapidjson::Value;

// The parse tree lives only while the request is parsed; its first blocks come
// from per-thread buffers so a small request costs no allocation for it.
using ParseAllocator = rapidjson::MemoryPoolAllocator<>;
using JsonDocument = rapidjson::GenericDocument<rapidjson::UTF8<>, ParseAllocator, ParseAllocator>;
struct InferRequestParse;  // ThreadParseBuffers' key
// Iterative: a deeply nested body cannot exhaust the thread's stack.
// Numbers are read by ParseInsituExact (exact_json.h): FP64 values must
// round-trip exactly, and RapidJSON's own full precision is unsafe.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;

std::string Quote(const char* name) { return std::string("'") + name + "'"; }

const Value* Find(const Value& object, const char* key) {
  const auto it = object.FindMember(key);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// Checks that binary data of a fixed-size datatype is exactly the shape's size,
// and that BYTES data holds `count` length-prefixed elements.
Status CheckBinarySize(const ParsedInput& input, uint64_t count) {
  if (input.datatype != INFERD_TYPE_BYTES) {
    const uint64_t expected = count * INFERD_DataTypeByteSize(input.datatype);
    if (input.byte_size == expected) return Status::Ok();
    return Status::InvalidArg("input " + Quote(input.name) + ": binary_data_size " +
                              std::to_string(input.byte_size) + " does not match its shape, " +
                              std::to_string(count) + " elements of " +
                              INFERD_DataTypeString(input.datatype) + " = " +
                              std::to_string(expected) + " bytes");
  }
  size_t offset = 0;
  uint64_t elements = 0;
  while (input.byte_size - offset >= sizeof(uint32_t)) {
    uint32_t length;
    std::memcpy(&length, input.data + offset, sizeof length);
    offset += sizeof length;
    if (input.byte_size - offset < length) break;
    offset += length;
    ++elements;
  }
  if (offset == input.byte_size && elements == count) return Status::Ok();
  return Status::InvalidArg("input " + Quote(input.name) + ": its " +
                            std::to_string(input.byte_size) + " bytes of BYTES data do not hold " +
                            std::to_string(count) + " length-prefixed elements");
}

// The shared_memory_* parameters of a tensor, if it has them: a region name,
// a byte size and an optional offset.
Status ParseSharedMemoryRef(const Value& parameters, const std::string& what,
                            SharedMemoryRef* ref) {
  const Value* region = Find(parameters, "shared_memory_region");
  const Value* byte_size = Find(parameters, "shared_memory_byte_size");
  const Value* offset = Find(parameters, "shared_memory_offset");
  if (region == nullptr) {
    if (byte_size != nullptr || offset != nullptr) {
      return Status::InvalidArg(what + ": 'shared_memory_byte_size' and 'shared_memory_offset' " +
                                "need a 'shared_memory_region'");
    }
    return Status::Ok();
  }
  if (!region->IsString() || region->GetStringLength() == 0) {
    return Status::InvalidArg(what + ": 'shared_memory_region' must be a non-empty string");
  }
  if (byte_size == nullptr || !byte_size->IsUint64()) {
    return Status::InvalidArg(what + ": a tensor in shared memory needs " +
                              "'shared_memory_byte_size', a non-negative integer");
  }
  if (offset != nullptr && !offset->IsUint64()) {
    return Status::InvalidArg(what + ": 'shared_memory_offset' must be a non-negative integer");
  }
  ref->region.assign(region->GetString(), region->GetStringLength());
  ref->byte_size = byte_size->GetUint64();
  ref->offset = offset != nullptr ? offset->GetUint64() : 0;
  return Status::Ok();
}

Status ParseShape(const Value* shape, ParsedInput* input) {
  if (shape == nullptr || !shape->IsArray()) {
    return Status::InvalidArg("input " + Quote(input->name) + ": 'shape' must be an array");
  }
  input->shape.reserve(shape->Size());
  for (const Value& dim : shape->GetArray()) {
    if (!dim.IsInt64()) {
      return Status::InvalidArg("input " + Quote(input->name) +
                                ": 'shape' must hold only integers");
    }
    input->shape.push_back(dim.GetInt64());
  }
  return Status::Ok();
}

// An input's name, datatype and shape; `count` its element count.
Status ParseInputHeader(const Value& json, size_t index, ParsedInput* input, uint64_t* count) {
  const Value* name = Find(json, "name");
  if (name == nullptr || !name->IsString()) {
    return Status::InvalidArg("inputs[" + std::to_string(index) + "]: 'name' must be a string");
  }
  input->name = name->GetString();
  const Value* datatype = Find(json, "datatype");
  if (datatype == nullptr || !datatype->IsString()) {
    return Status::InvalidArg("input " + Quote(input->name) + ": 'datatype' must be a string");
  }
  input->datatype = INFERD_StringToDataType(datatype->GetString());
  if (input->datatype == INFERD_TYPE_INVALID) {
    return Status::InvalidArg("input " + Quote(input->name) + ": unknown datatype " +
                              Quote(datatype->GetString()));
  }
  if (Status s = ParseShape(Find(json, "shape"), input); !s.ok()) return s;
  return ShapeElementCount(input->shape, input->name, count);
}

// Where an input's bytes are: a shared memory region, the binary section
// after the JSON, or its JSON 'data' (decoded into `out`).
Status ParseInputData(const Value& json, uint64_t count, BinarySection* binary,
                      ParsedInput& input, ParsedInferRequest* out) {
  const Value* binary_size = nullptr;
  if (const Value* parameters = Find(json, "parameters")) {
    if (!parameters->IsObject()) {
      return Status::InvalidArg("input " + Quote(input.name) + ": 'parameters' must be an object");
    }
    if (Status s = ParseSharedMemoryRef(*parameters, "input " + Quote(input.name),
                                        &input.shared_memory);
        !s.ok()) {
      return s;
    }
    binary_size = Find(*parameters, "binary_data_size");
  }
  const Value* data = Find(json, "data");
  if (!input.shared_memory.region.empty()) {
    if (data != nullptr || binary_size != nullptr) {
      return Status::InvalidArg("input " + Quote(input.name) +
                                " is in shared memory and must not also have 'data' or "
                                "'binary_data_size'");
    }
    input.byte_size = input.shared_memory.byte_size;
    return Status::Ok();
  }
  if (binary_size != nullptr) {
    if (!binary_size->IsUint64()) {
      return Status::InvalidArg("input " + Quote(input.name) +
                                ": 'binary_data_size' must be a non-negative integer");
    }
    if (data != nullptr) {
      return Status::InvalidArg("input " + Quote(input.name) +
                                " has both 'data' and 'binary_data_size'");
    }
    std::string_view slice;
    if (Status s = binary->Take(input.name, binary_size->GetUint64(), &slice); !s.ok()) return s;
    input.data = slice.data();
    input.byte_size = slice.size();
    return CheckBinarySize(input, count);
  }
  if (data == nullptr) {
    return Status::InvalidArg("input " + Quote(input.name) +
                              " has neither 'data' nor a 'binary_data_size' parameter");
  }
  TensorBytes bytes;
  if (Status s = JsonToTensor(*data, input.datatype, count, input.name, &bytes); !s.ok()) return s;
  input.data = bytes.data.get();
  input.byte_size = bytes.byte_size;
  out->decoded.push_back(std::move(bytes.data));
  return Status::Ok();
}

Status ParseInput(const Value& json, size_t index, BinarySection* binary,
                  ParsedInferRequest* out) {
  if (!json.IsObject()) return Status::InvalidArg("'inputs' must be an array of objects");
  ParsedInput& input = out->inputs.emplace_back();
  uint64_t count = 0;
  if (Status s = ParseInputHeader(json, index, &input, &count); !s.ok()) return s;
  return ParseInputData(json, count, binary, input, out);
}

Status ParseOutput(const Value& json, size_t index, ParsedInferRequest* out) {
  if (!json.IsObject()) return Status::InvalidArg("'outputs' must be an array of objects");
  const Value* name = Find(json, "name");
  if (name == nullptr || !name->IsString()) {
    return Status::InvalidArg("outputs[" + std::to_string(index) + "]: 'name' must be a string");
  }
  ParsedOutput& output = out->outputs.emplace_back();
  output.name.assign(name->GetString(), name->GetStringLength());
  output.binary = out->binary_data_output;
  const Value* parameters = Find(json, "parameters");
  if (parameters == nullptr) return Status::Ok();
  if (!parameters->IsObject()) {
    return Status::InvalidArg("output '" + output.name + "': 'parameters' must be an object");
  }
  if (Status s = ParseSharedMemoryRef(*parameters, "output '" + output.name + "'",
                                      &output.shared_memory);
      !s.ok()) {
    return s;
  }
  if (const Value* classes = Find(*parameters, "classification")) {
    if (!classes->IsUint() || classes->GetUint() == 0) {
      return Status::InvalidArg("output '" + output.name +
                                "': 'classification' must be a positive integer");
    }
    output.class_count = classes->GetUint();
  }
  if (const Value* binary = Find(*parameters, "binary_data")) {
    if (!binary->IsBool()) {
      return Status::InvalidArg("output '" + output.name + "': 'binary_data' must be a boolean");
    }
    output.binary = binary->GetBool();
  }
  return Status::Ok();
}

// One request-level parameter: the ones the protocol defines set request
// fields; any other is passed through to the model.
Status ParseParameter(const char* name, const Value& value, ParsedInferRequest* out) {
  const std::string_view key(name);
  const auto invalid = [name](const char* expected) {
    return Status::InvalidArg("parameter " + Quote(name) + " must be " + expected);
  };
  if (key == "sequence_id") {
    if (value.IsUint64()) {
      out->sequence_id = value.GetUint64();
    } else if (value.IsString()) {
      out->sequence_id_string = value.GetString();
    } else {
      return invalid("a non-negative integer or a string");
    }
  } else if (key == "sequence_start" || key == "sequence_end") {
    if (!value.IsBool()) return invalid("a boolean");
    if (value.GetBool()) {
      out->flags |= key == "sequence_start" ? INFERD_REQUEST_FLAG_SEQUENCE_START
                                            : INFERD_REQUEST_FLAG_SEQUENCE_END;
    }
  } else if (key == "priority") {
    if (!value.IsUint64() || value.GetUint64() > std::numeric_limits<uint32_t>::max()) {
      return invalid("a non-negative 32-bit integer");
    }
    out->priority = static_cast<uint32_t>(value.GetUint64());
  } else if (key == "timeout") {
    if (!value.IsUint64()) return invalid("a non-negative integer (microseconds)");
    out->timeout_us = value.GetUint64();
  } else if (key == "binary_data_output") {
    if (!value.IsBool()) return invalid("a boolean");
    out->binary_data_output = value.GetBool();
  } else if (!AddCustomParameter(name, value, out)) {
    return invalid("a string, a boolean or a number that fits a 64-bit integer or a double");
  }
  return Status::Ok();
}

Status ParseDocument(const Value& root, BinarySection* binary, ParsedInferRequest* out) {
  if (!root.IsObject()) return Status::InvalidArg("the infer request must be a JSON object");
  if (const Value* id = Find(root, "id")) {
    if (!id->IsString()) return Status::InvalidArg("'id' must be a string");
    out->id = id->GetString();
  }
  // Parameters first: binary_data_output is the default for every output.
  if (const Value* parameters = Find(root, "parameters")) {
    if (!parameters->IsObject()) return Status::InvalidArg("'parameters' must be an object");
    for (const auto& member : parameters->GetObject()) {
      if (Status s = ParseParameter(member.name.GetString(), member.value, out); !s.ok()) return s;
    }
  }
  const Value* inputs = Find(root, "inputs");
  if (inputs == nullptr || !inputs->IsArray()) {
    return Status::InvalidArg("'inputs' must be an array");
  }
  out->inputs.reserve(inputs->Size());
  for (rapidjson::SizeType i = 0; i < inputs->Size(); ++i) {
    if (Status s = ParseInput((*inputs)[i], i, binary, out); !s.ok()) return s;
  }
  if (const Value* outputs = Find(root, "outputs")) {
    if (!outputs->IsArray()) return Status::InvalidArg("'outputs' must be an array");
    out->outputs.reserve(outputs->Size());
    for (rapidjson::SizeType i = 0; i < outputs->Size(); ++i) {
      if (Status s = ParseOutput((*outputs)[i], i, out); !s.ok()) return s;
    }
  }
  return binary->Finish();
}

}  // namespace

bool AddCustomParameter(const char* name, const Value& value, ParsedInferRequest* out) {
  ParsedParameter parameter;
  parameter.name = name;
  if (value.IsString()) {
    parameter.kind = ParsedParameter::Kind::kString;
    parameter.string_value = value.GetString();
  } else if (value.IsBool()) {
    parameter.kind = ParsedParameter::Kind::kBool;
    parameter.bool_value = value.GetBool();
  } else if (value.IsInt64()) {
    parameter.kind = ParsedParameter::Kind::kInt;
    parameter.int_value = value.GetInt64();
  } else if (value.IsNumber() && !value.IsUint64()) {
    parameter.kind = ParsedParameter::Kind::kDouble;
    parameter.double_value = value.GetDouble();
  } else {
    return false;
  }
  out->parameters.push_back(parameter);
  return true;
}

Status ShapeElementCount(const std::vector<int64_t>& shape, const char* input_name,
                         uint64_t* count) {
  uint64_t product = 1;
  for (const int64_t dim : shape) {
    if (dim < 0) {
      return Status::InvalidArg("input " + Quote(input_name) +
                                ": 'shape' has a negative dimension");
    }
    if (__builtin_mul_overflow(product, static_cast<uint64_t>(dim), &product)) {
      return Status::InvalidArg("input " + Quote(input_name) + ": 'shape' is too large");
    }
  }
  *count = product;
  return Status::Ok();
}

Status ParseInferRequest(char* body, size_t body_size, size_t json_size, ParsedInferRequest* out) {
  ParseBuffers& buffers = ThreadParseBuffers<InferRequestParse>();
  ParseAllocator value_allocator(buffers.values, sizeof buffers.values);
  ParseAllocator stack_allocator(buffers.stack, sizeof buffers.stack);
  JsonDocument document(&value_allocator, ParseBuffers::kStackBytes / 2, &stack_allocator);

  // The JSON ends where the binary data starts: end it there for the parser,
  // then put the byte back (strings are terminated inside the JSON part).
  const char saved = body[json_size];
  body[json_size] = '\0';
  const rapidjson::ParseResult parsed = ParseInsituExact<kParseFlags>(body, &document,
                                                                      &stack_allocator);
  body[json_size] = saved;
  if (parsed.IsError()) {
    return Status::InvalidArg(std::string("failed to parse the request JSON: ") +
                              rapidjson::GetParseError_En(parsed.Code()) + " at offset " +
                              std::to_string(parsed.Offset()));
  }
  BinarySection binary(std::string_view(body + json_size, body_size - json_size));
  return ParseDocument(document, &binary, out);
}

}  // namespace inferd::http
