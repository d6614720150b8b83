#include "core/infer/request_validator.h"

#include <cstring>

#include "core/common/datatype.h"
#include "core/infer/classification.h"
#include "core/infer/inference_request.h"

namespace inferd {
namespace {

std::string Where(const InferenceRequest& request, const std::string& input) {
  return "model '" + request.model_name() + "', input '" + input + "': ";
}

const inference::ModelInput* FindConfigInput(const inference::ModelConfig& config,
                                             const std::string& name) {
  for (const auto& input : config.input()) {
    if (input.name() == name) return &input;
  }
  return nullptr;
}

std::string ExpectedShape(const inference::ModelConfig& config, const inference::ModelInput& in) {
  std::vector<int64_t> shape;
  if (config.max_batch_size() > 0) shape.push_back(-1);
  shape.insert(shape.end(), in.dims().begin(), in.dims().end());
  return ShapeToString(shape);
}

// Checks the per-row dims against the configuration (-1 matches anything).
bool DimsMatch(std::span<const int64_t> dims, const google::protobuf::RepeatedField<int64_t>& want) {
  if (dims.size() != static_cast<size_t>(want.size())) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return false;
    if (want[i] != -1 && want[i] != dims[i]) return false;
  }
  return true;
}

// The backend's view of `dims` after the configured reshape; -1 in the
// reshape takes whatever element count is left.
std::vector<int64_t> Reshaped(std::span<const int64_t> dims,
                              const inference::ModelTensorReshape& reshape) {
  std::vector<int64_t> out(reshape.shape().begin(), reshape.shape().end());
  int64_t known = 1;
  int wildcard = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      wildcard = static_cast<int>(i);
    } else {
      known *= out[i];
    }
  }
  if (wildcard >= 0 && known > 0) out[wildcard] = ElementCount(dims) / known;
  return out;
}

// A batching model's input (not a shape tensor): checks its batch dimension
// against max_batch_size and the request's other inputs, and takes it off
// `dims`.
Status TakeBatchDimension(const inference::ModelConfig& config, const inference::ModelInput& want,
                          const std::string& where, InferenceRequest* request,
                          std::span<const int64_t>* dims) {
  if (dims->empty()) {
    return Status::InvalidArg(where + "shape [] lacks the batch dimension; expected " +
                              ExpectedShape(config, want));
  }
  const int64_t batch = (*dims)[0];
  if (batch < 1 || batch > config.max_batch_size()) {
    return Status::InvalidArg(where + "batch size " + std::to_string(batch) +
                              " is outside 1.." + std::to_string(config.max_batch_size()) +
                              " (max_batch_size)");
  }
  if (request->batch_size == 0) {
    request->batch_size = static_cast<uint64_t>(batch);
  } else if (request->batch_size != static_cast<uint64_t>(batch)) {
    return Status::InvalidArg(where + "batch size " + std::to_string(batch) +
                              " differs from the other inputs' " +
                              std::to_string(request->batch_size));
  }
  *dims = dims->subspan(1);
  return Status::Ok();
}

// Checks that the input's bytes are what its shape and datatype need.
Status CheckDataSize(const std::string& where, const InputTensor& input) {
  const int64_t elements = ElementCount(input.original_shape);
  uint64_t need = 0;
  if (elements < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(elements),
                             uint64_t{DataTypeByteSize(input.datatype)}, &need)) {
    return Status::InvalidArg(where + "shape " + ShapeToString(input.original_shape) +
                              " has more elements than any request can hold");
  }
  if (input.datatype == INFERD_TYPE_BYTES) return ValidateBytesTensor(input, elements);
  if (input.byte_size != need) {
    return Status::InvalidArg(where + "has " + std::to_string(input.byte_size) +
                              " bytes of data but shape " + ShapeToString(input.original_shape) +
                              " of " + std::string(DataTypeName(input.datatype)) + " needs " +
                              std::to_string(need));
  }
  return Status::Ok();
}

Status ValidateInput(const inference::ModelConfig& config, const inference::ModelInput& want,
                     InferenceRequest* request, InputTensor* input) {
  const std::string where = Where(*request, input->name);
  const INFERD_DataType want_type = FromConfigDataType(want.data_type());
  if (input->datatype != want_type) {
    return Status::InvalidArg(where + "datatype " + std::string(DataTypeName(input->datatype)) +
                              " does not match the model's " +
                              std::string(DataTypeName(want_type)));
  }
  std::span<const int64_t> dims(input->original_shape);
  if (config.max_batch_size() > 0 && !want.is_shape_tensor()) {
    RETURN_IF_ERROR(TakeBatchDimension(config, want, where, request, &dims));
  }
  if (!DimsMatch(dims, want.dims())) {
    return Status::InvalidArg(where + "shape " + ShapeToString(input->original_shape) +
                              " does not match the model's " + ExpectedShape(config, want));
  }
  RETURN_IF_ERROR(CheckDataSize(where, *input));
  if (want.has_reshape()) {
    std::vector<int64_t> shape;
    if (config.max_batch_size() > 0) shape.push_back(input->original_shape[0]);
    std::vector<int64_t> reshaped = Reshaped(dims, want.reshape());
    shape.insert(shape.end(), reshaped.begin(), reshaped.end());
    input->shape = std::move(shape);
  } else {
    input->shape = input->original_shape;
  }
  return Status::Ok();
}

}  // namespace

Status ValidateBytesTensor(const InputTensor& input, int64_t element_count) {
  // Walks the length-prefixed elements across buffer boundaries.
  int64_t elements = 0;
  uint64_t pending = 0;      // bytes of the current element still to skip
  uint8_t prefix[4];
  size_t prefix_have = 0;    // bytes of the current length prefix read so far
  for (const InputBuffer& buffer : input.buffers) {
    const uint8_t* p = static_cast<const uint8_t*>(buffer.base);
    size_t left = buffer.byte_size;
    while (left > 0) {
      if (pending > 0) {
        const size_t skip = static_cast<size_t>(std::min<uint64_t>(pending, left));
        p += skip;
        left -= skip;
        pending -= skip;
        continue;
      }
      prefix[prefix_have++] = *p++;
      --left;
      if (prefix_have == 4) {
        pending = static_cast<uint64_t>(prefix[0]) | static_cast<uint64_t>(prefix[1]) << 8 |
                  static_cast<uint64_t>(prefix[2]) << 16 | static_cast<uint64_t>(prefix[3]) << 24;
        prefix_have = 0;
        ++elements;
      }
    }
  }
  if (prefix_have != 0 || pending != 0) {
    return Status::InvalidArg("input '" + input.name +
                              "': BYTES data ends inside an element (each element is a 4-byte "
                              "little-endian length followed by its bytes)");
  }
  if (elements != element_count) {
    return Status::InvalidArg("input '" + input.name + "': BYTES data holds " +
                              std::to_string(elements) + " element(s) but shape " +
                              ShapeToString(input.original_shape) + " needs " +
                              std::to_string(element_count));
  }
  return Status::Ok();
}

Status ValidateRequest(const inference::ModelConfig& config,
                       const std::shared_ptr<const std::vector<std::string>>& all_outputs,
                       InferenceRequest* request) {
  request->batch_size = 0;
  for (InputTensor& input : request->inputs()) {
    const inference::ModelInput* want = FindConfigInput(config, input.name);
    if (want == nullptr) {
      std::string expected;
      for (const auto& in : config.input()) expected += (expected.empty() ? "'" : ", '") + in.name() + "'";
      return Status::InvalidArg("model '" + request->model_name() + "' has no input '" +
                                input.name + "' (expected " + expected + ")");
    }
    RETURN_IF_ERROR(ValidateInput(config, *want, request, &input));
  }
  for (const auto& want : config.input()) {
    if (!want.optional() && request->FindInput(want.name()) == nullptr) {
      return Status::InvalidArg("model '" + request->model_name() + "': missing input '" +
                                want.name() + "'");
    }
  }
  if (request->requested_outputs.empty()) {
    request->outputs = all_outputs;
    return Status::Ok();
  }
  auto outputs = std::make_shared<std::vector<std::string>>();
  for (const std::string& name : request->requested_outputs) {
    bool known = false;
    for (const auto& out : config.output()) known = known || out.name() == name;
    if (!known) {
      return Status::InvalidArg("model '" + request->model_name() + "' has no output '" + name +
                                "'");
    }
    outputs->push_back(name);
  }
  for (const auto& [name, class_count] : request->classifications) {
    for (const auto& out : config.output()) {
      if (out.name() != name) continue;
      const INFERD_DataType datatype = FromConfigDataType(out.data_type());
      if (!IsClassifiable(datatype)) {
        return Status::InvalidArg("model '" + request->model_name() + "': output '" + name +
                                  "' is " + INFERD_DataTypeString(datatype) +
                                  ", which cannot be classified (only numeric outputs can)");
      }
    }
  }
  request->outputs = std::move(outputs);
  return Status::Ok();
}

}  // namespace inferd
