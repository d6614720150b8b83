// Generate extension request body -> ParsedInferRequest.
#include "http/generate_request.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstring>
#include <string>
#include <string_view>

#include "http/exact_json.h"
#include "http/parse_buffers.h"
#include "http/tensor_json.h"

namespace inferd::http {
namespace {

using rapidjson::Value;

// As the /infer parser: the parse tree's first blocks come from per-thread
// buffers, parsing is iterative (deep nesting cannot exhaust the stack) and
// keeps full precision (FP64 values round-trip).
using ParseAllocator = rapidjson::MemoryPoolAllocator<>;
using JsonDocument = rapidjson::GenericDocument<rapidjson::UTF8<>, ParseAllocator, ParseAllocator>;
struct GenerateRequestParse;  // ThreadParseBuffers' key
// Numbers are read exactly by ParseInsituExact (exact_json.h).
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;

std::string Quote(std::string_view text) {
  std::string quoted(1, '\'');
  quoted.append(text);
  quoted.push_back('\'');
  return quoted;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

const ModelInput* FindInput(const std::vector<ModelInput>& inputs, std::string_view name) {
  for (const ModelInput& input : inputs) {
    if (input.name == name) return &input;
  }
  return nullptr;
}

Status AddInput(const ModelInput& input, const char* name, const Value& value,
                ParsedInferRequest* out) {
  for (const ParsedInput& seen : out->inputs) {
    if (std::strcmp(seen.name, name) == 0) {
      return Status::InvalidArg("input " + Quote(name) + " is given twice");
    }
  }
  uint64_t count = 0;
  RETURN_IF_ERROR(CountJsonElements(value, input.name, &count));
  ParsedInput& parsed = out->inputs.emplace_back();
  parsed.name = name;
  parsed.datatype = input.datatype;
  RETURN_IF_ERROR(GenerateInputShape(input, count, &parsed.shape));
  TensorBytes bytes;
  RETURN_IF_ERROR(JsonToTensor(value, input.datatype, count, input.name, &bytes, "its value"));
  parsed.data = bytes.data.get();
  parsed.byte_size = bytes.byte_size;
  out->decoded.push_back(std::move(bytes.data));
  return Status::Ok();
}

Status AddParameter(const char* name, const Value& value, ParsedInferRequest* out) {
  if (AddCustomParameter(name, value, out)) return Status::Ok();
  return Status::InvalidArg(
      Quote(name) + " is not an input of the model, so it is a request parameter, which must " +
      "be a string, a boolean or a number that fits a 64-bit integer or a double");
}

// One key of the request object or of its "parameters".
Status AddMember(const std::vector<ModelInput>& inputs, const char* name, const Value& value,
                 ParsedInferRequest* out) {
  if (const ModelInput* input = FindInput(inputs, name)) {
    return AddInput(*input, name, value, out);
  }
  return AddParameter(name, value, out);
}

Status ParseRoot(const Value& root, const std::vector<ModelInput>& inputs,
                 ParsedInferRequest* out) {
  if (!root.IsObject()) return Status::InvalidArg("the generate request must be a JSON object");
  for (const auto& member : root.GetObject()) {
    const char* name = member.name.GetString();
    // A model input may be called "parameters" or "id": then it is the input.
    if (FindInput(inputs, name) == nullptr && std::strcmp(name, "parameters") == 0) {
      if (!member.value.IsObject()) return Status::InvalidArg("'parameters' must be a JSON object");
      for (const auto& nested : member.value.GetObject()) {
        RETURN_IF_ERROR(AddMember(inputs, nested.name.GetString(), nested.value, out));
      }
    } else if (FindInput(inputs, name) == nullptr && std::strcmp(name, "id") == 0) {
      if (!member.value.IsString()) return Status::InvalidArg("'id' must be a string");
      out->id = member.value.GetString();
    } else {
      RETURN_IF_ERROR(AddMember(inputs, name, member.value, out));
    }
  }
  return Status::Ok();
}

}  // namespace

Status GenerateInputShape(const ModelInput& input, uint64_t element_count,
                          std::vector<int64_t>* shape) {
  *shape = input.shape;
  uint64_t fixed = 1;
  int innermost_variable = -1;
  for (size_t i = 0; i < shape->size(); ++i) {
    const int64_t dim = (*shape)[i];
    if (dim < 0) {
      innermost_variable = static_cast<int>(i);
      (*shape)[i] = 1;
    } else if (__builtin_mul_overflow(fixed, static_cast<uint64_t>(dim), &fixed)) {
      fixed = 0;  // no value can be this large
    }
  }
  const bool fits = innermost_variable < 0 ? element_count == fixed
                    : fixed == 0           ? element_count == 0
                                           : element_count % fixed == 0;
  if (!fits) {
    return Status::InvalidArg("input " + Quote(input.name) + ": " + std::to_string(element_count) +
                              " element(s) do not fit the model's shape " +
                              ShapeText(input.shape));
  }
  if (innermost_variable >= 0 && fixed != 0) {
    (*shape)[innermost_variable] = static_cast<int64_t>(element_count / fixed);
  }
  return Status::Ok();
}

Status ParseGenerateRequest(char* body, size_t body_size, const std::vector<ModelInput>& inputs,
                            ParsedInferRequest* out) {
  if (std::string_view(body, body_size).find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Status::Ok();  // as Triton, an empty body is an empty request
  }
  ParseBuffers& buffers = ThreadParseBuffers<GenerateRequestParse>();
  ParseAllocator value_allocator(buffers.values, sizeof buffers.values);
  ParseAllocator stack_allocator(buffers.stack, sizeof buffers.stack);
  JsonDocument document(&value_allocator, ParseBuffers::kStackBytes / 2, &stack_allocator);
  const rapidjson::ParseResult parsed = ParseInsituExact<kParseFlags>(body, &document,
                                                                      &stack_allocator);
  if (parsed.IsError()) {
    return Status::InvalidArg(std::string("failed to parse the generate request JSON: ") +
                              rapidjson::GetParseError_En(parsed.Code()) + " at offset " +
                              std::to_string(parsed.Offset()));
  }
  return ParseRoot(document, inputs, out);
}

}  // namespace inferd::http
