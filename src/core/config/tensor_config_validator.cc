#include "core/config/tensor_config_validator.h"

#include <filesystem>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/common/datatype.h"
#include "core/config/closest_name.h"
#include "core/config/model_platform.h"

namespace inferd {
namespace {

using Dims = google::protobuf::RepeatedField<int64_t>;

std::span<const int64_t> AsSpan(const Dims& dims) {
  return {dims.data(), static_cast<size_t>(dims.size())};
}

// Products of the runs of fixed sizes between -1s: [2,4,-1,6] -> {8,6}.
// Two shapes hold the same data in every case exactly when these match.
std::vector<int64_t> FixedRuns(const Dims& dims) {
  std::vector<int64_t> runs{1};
  for (int64_t dim : dims) {
    if (dim == -1) {
      runs.push_back(1);
    } else {
      runs.back() *= dim;
    }
  }
  return runs;
}

// "did you mean 'x'?" for the name of `names` nearest `name`, else a list.
std::string SimilarName(const std::string& name, const std::set<std::string>& names) {
  const std::string closest = ClosestName(name, {names.begin(), names.end()});
  if (!closest.empty()) return "did you mean '" + closest + "'?";
  std::string known;
  for (const std::string& each : names) known += (known.empty() ? "" : ", ") + each;
  return "one of: " + known;
}

// When `dims` has one dimension more than the `rank` wanted and the model
// batches, the batch dimension was most likely written into dims.
std::string BatchDimensionFix(const inference::ModelConfig& config, const Dims& dims, int rank) {
  if (config.max_batch_size() > 0 && dims.size() == rank + 1) {
    return "leave out the batch dimension (max_batch_size > 0 adds it): dims: " +
           ShapeToString(AsSpan(dims).subspan(1));
  }
  return "dims: [ C, H, W ] or [ H, W, C ]";
}

Status CheckDims(const ConfigErrors& errors, const std::string& field, const Dims& dims) {
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1 || dims[i] > 0) {
      continue;
    }
    return errors.At(field + "[" + std::to_string(i) + "]",
                     "must be -1 or positive, got " + std::to_string(dims[i]),
                     "-1 for a size that varies, else the size");
  }
  return Status::Ok();
}

Status CheckReshape(const ConfigErrors& errors, const std::string& label, const Dims& dims,
                    const inference::ModelTensorReshape& reshape) {
  const std::string field = label + " reshape";
  RETURN_IF_ERROR(CheckDims(errors, field + " shape", reshape.shape()));
  if (reshape.shape_size() == 0 && errors.config().max_batch_size() == 0) {
    return errors.At(field,
                     "an empty shape needs max_batch_size > 0 (a model that does "
                     "not batch cannot take a scalar)",
                     "max_batch_size: 1 or more, or reshape: { shape: [ 1 ] }");
  }
  const std::vector<int64_t> from = FixedRuns(dims);
  const std::vector<int64_t> to = FixedRuns(reshape.shape());
  if (from.size() != to.size()) {
    return errors.At(field,
                     "shape " + ShapeToString(AsSpan(reshape.shape())) + " has " +
                         std::to_string(to.size() - 1) + " variable (-1) dimensions but dims " +
                         ShapeToString(AsSpan(dims)) + " has " + std::to_string(from.size() - 1),
                     "give shape as many -1s as dims");
  }
  if (from != to) {
    return errors.At(field, "shape " + ShapeToString(AsSpan(reshape.shape())) +
                                " does not hold the same number of elements as dims " +
                                ShapeToString(AsSpan(dims)),
                     "a shape whose sizes multiply to those of dims");
  }
  return Status::Ok();
}

// The checks inputs and outputs share.
template <typename Tensor>
Status CheckTensor(const ConfigErrors& errors, const std::string& label, const Tensor& tensor) {
  if (tensor.data_type() == inference::TYPE_INVALID) {
    return errors.At(label + " data_type", "must be set (TYPE_FP32, TYPE_INT64, ...)",
                     "data_type: TYPE_FP32 (the tensor's type)");
  }
  if (tensor.dims_size() == 0) {
    return errors.At(label + " dims",
                     "must have at least one dimension (for one value per "
                     "batch entry use dims: [ 1 ] with reshape: { shape: [ ] })",
                     "dims: [ 1 ] reshape: { shape: [ ] }");
  }
  RETURN_IF_ERROR(CheckDims(errors, label + " dims", tensor.dims()));
  if (tensor.has_reshape()) {
    RETURN_IF_ERROR(CheckReshape(errors, label, tensor.dims(), tensor.reshape()));
  }
  if (tensor.is_shape_tensor()) {
    if (tensor.data_type() != inference::TYPE_INT32 &&
        tensor.data_type() != inference::TYPE_INT64) {
      return errors.At(label + " is_shape_tensor",
                       "a shape tensor must be TYPE_INT32 or TYPE_INT64, got " +
                           inference::DataType_Name(tensor.data_type()),
                       "data_type: TYPE_INT32");
    }
    if (tensor.dims_size() != 1) {
      return errors.At(label + " is_shape_tensor",
                       "a shape tensor must have exactly one dimension, got dims " +
                           ShapeToString(AsSpan(tensor.dims())));
    }
  }
  if (tensor.is_non_linear_format_io()) {
    if (errors.config().platform() != "tensorrt_plan") {
      return errors.At(label + " is_non_linear_format_io",
                       "is supported only for platform 'tensorrt_plan'");
    }
    if (tensor.dims_size() != 3) {
      return errors.At(label + " is_non_linear_format_io",
                       "needs exactly 3 dims, got " + ShapeToString(AsSpan(tensor.dims())));
    }
  }
  return Status::Ok();
}

// Tensor names must be present and unique within `field`.
template <typename Tensors>
Status CheckNames(const ConfigErrors& errors, const char* field, const Tensors& tensors) {
  std::set<std::string> seen;
  for (int i = 0; i < tensors.size(); ++i) {
    const std::string& name = tensors[i].name();
    if (name.empty()) {
      return errors.At(ElementLabel(field, "", i) + " name", "must not be empty",
                       "name: the model file's tensor name");
    }
    if (!seen.insert(name).second) {
      return errors.At(ElementLabel(field, name, i),
                       "the name is used by more than one " + std::string(field),
                       "rename or remove the second " + std::string(field) + " '" + name + "'");
    }
  }
  return Status::Ok();
}

Status CheckInputs(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  RETURN_IF_ERROR(CheckNames(errors, "input", config.input()));
  for (int i = 0; i < config.input_size(); ++i) {
    const inference::ModelInput& input = config.input(i);
    const std::string label = ElementLabel("input", input.name(), i);
    RETURN_IF_ERROR(CheckTensor(errors, label, input));
    const bool image = input.format() == inference::ModelInput::FORMAT_NHWC ||
                       input.format() == inference::ModelInput::FORMAT_NCHW;
    if (image && input.dims_size() != 3) {
      return errors.At(label + " format",
                       inference::ModelInput::Format_Name(input.format()) +
                           " needs exactly 3 dims (without the batch dimension), got " +
                           ShapeToString(AsSpan(input.dims())),
                       BatchDimensionFix(config, input.dims(), 3));
    }
  }
  return Status::Ok();
}

Status CheckOutputs(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  RETURN_IF_ERROR(CheckNames(errors, "output", config.output()));
  for (int i = 0; i < config.output_size(); ++i) {
    const inference::ModelOutput& output = config.output(i);
    const std::string label = ElementLabel("output", output.name(), i);
    RETURN_IF_ERROR(CheckTensor(errors, label, output));
    const std::filesystem::path& dir = errors.ctx().model_dir;
    if (output.label_filename().empty() || dir.empty()) {
      continue;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dir / output.label_filename(), ec)) {
      return errors.At(label + " label_filename",
                       "file '" + output.label_filename() + "' does not exist in " + dir.string(),
                       "put the labels file there, or remove label_filename");
    }
  }
  return Status::Ok();
}

Status CheckBatchTensors(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  std::set<std::string> inputs, outputs;
  for (const auto& input : config.input()) {
    inputs.insert(input.name());
  }
  for (const auto& output : config.output()) {
    outputs.insert(output.name());
  }
  for (int i = 0; i < config.batch_input_size(); ++i) {
    const inference::BatchInput& batch = config.batch_input(i);
    const std::string label = "batch_input[" + std::to_string(i) + "]";
    if (batch.target_name_size() == 0) {
      return errors.At(label + " target_name", "must not be empty");
    }
    if (batch.data_type() != inference::TYPE_INT32 && batch.data_type() != inference::TYPE_FP32) {
      return errors.At(label + " data_type", "must be TYPE_INT32 or TYPE_FP32",
                       "data_type: TYPE_INT32");
    }
    if (batch.source_input_size() != 1) {
      return errors.At(label + " source_input", "must name exactly one input, got " +
                                                    std::to_string(batch.source_input_size()));
    }
    if (!inputs.contains(batch.source_input(0))) {
      return errors.At(label + " source_input", "'" + batch.source_input(0) + "' is not an input",
                       SimilarName(batch.source_input(0), inputs));
    }
  }
  for (int i = 0; i < config.batch_output_size(); ++i) {
    const inference::BatchOutput& batch = config.batch_output(i);
    const std::string label = "batch_output[" + std::to_string(i) + "]";
    for (const std::string& target : batch.target_name()) {
      if (!outputs.contains(target)) {
        return errors.At(label + " target_name", "'" + target + "' is not an output",
                         SimilarName(target, outputs));
      }
    }
    if (batch.source_input_size() != 1 || !inputs.contains(batch.source_input(0))) {
      return errors.At(label + " source_input", "must name exactly one input of the model");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateModelTensors(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  const bool needs_tensors = config.platform() != kEnsemblePlatform &&
                             config.backend() != "python" && !errors.ctx().allow_incomplete_io;
  if (needs_tensors && config.input_size() == 0) {
    return errors.At("input", "the model must declare at least one input",
                     "add input [ { name: ... data_type: ... dims: [ ... ] } ], or let the "
                     "backend complete it (no --disable-auto-complete-config)");
  }
  if (needs_tensors && config.output_size() == 0) {
    return errors.At("output", "the model must declare at least one output",
                     "add output [ { name: ... data_type: ... dims: [ ... ] } ]");
  }
  RETURN_IF_ERROR(CheckInputs(errors));
  RETURN_IF_ERROR(CheckOutputs(errors));
  return CheckBatchTensors(errors);
}

}  // namespace inferd
