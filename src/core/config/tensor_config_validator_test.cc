#include "core/config/tensor_config_validator.h"

#include "core/config/validator_test_fixture.h"

namespace inferd {
namespace {

class ModelConfigTensorValidatorTest : public ConfigValidatorFixture {
 protected:
  // The base config with its input replaced by `input` (text of one ModelInput).
  inference::ModelConfig WithInput(const std::string& input) {
    inference::ModelConfig config = With("input [ " + input + " ]");
    config.mutable_input()->DeleteSubrange(0, 1);
    return config;
  }
  inference::ModelConfig WithOutput(const std::string& output) {
    inference::ModelConfig config = With("output [ " + output + " ]");
    config.mutable_output()->DeleteSubrange(0, 1);
    return config;
  }
};

TEST_F(ModelConfigTensorValidatorTest, AtLeastOneInput) {
  inference::ModelConfig config = With("");
  config.clear_input();
  ExpectError(config, "input", "at least one input");
}

TEST_F(ModelConfigTensorValidatorTest, AtLeastOneOutput) {
  inference::ModelConfig config = With("");
  config.clear_output();
  ExpectError(config, "output", "at least one output");
}

TEST_F(ModelConfigTensorValidatorTest, PythonModelMayDeclareNoTensors) {
  inference::ModelConfig config = With("backend: \"python\"");
  config.clear_input();
  config.clear_output();
  ExpectValid(config);
}

TEST_F(ModelConfigTensorValidatorTest, InputNameMustNotBeEmpty) {
  ExpectError(WithInput("{ data_type: TYPE_FP32 dims: [ 1 ] }"), "input[0] name",
              "must not be empty");
}

TEST_F(ModelConfigTensorValidatorTest, InputNamesMustBeUnique) {
  ExpectError(With("input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 1 ] } ]"),
              "input 'INPUT0'", "used by more than one input");
}

TEST_F(ModelConfigTensorValidatorTest, OutputNamesMustBeUnique) {
  ExpectError(With("output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 1 ] } ]"),
              "output 'OUTPUT0'", "used by more than one output");
}

TEST_F(ModelConfigTensorValidatorTest, DataTypeMustBeSet) {
  ExpectError(WithInput("{ name: \"x\" dims: [ 1 ] }"), "input 'x' data_type", "must be set");
  ExpectError(WithOutput("{ name: \"y\" dims: [ 1 ] }"), "output 'y' data_type", "must be set");
}

TEST_F(ModelConfigTensorValidatorTest, DimsMustNotBeEmpty) {
  ExpectError(WithInput("{ name: \"x\" data_type: TYPE_FP32 }"), "input 'x' dims",
              "at least one dimension");
}

TEST_F(ModelConfigTensorValidatorTest, DimMustBeMinusOneOrPositive) {
  ExpectError(WithOutput("{ name: \"y\" data_type: TYPE_FP32 dims: [ 4, -2 ] }"),
              "output 'y' dims[1]", "must be -1 or positive, got -2");
}

TEST_F(ModelConfigTensorValidatorTest, ReshapeMustKeepElementCount) {
  ExpectError(
      WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 4, 4 ] reshape { shape: [ 8 ] } }"),
      "input 'x' reshape", "same number of elements as dims [4,4]");
}

TEST_F(ModelConfigTensorValidatorTest, ReshapeMatchingElementCountIsValid) {
  ExpectValid(
      WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 4, 4 ] reshape { shape: [ 2, 8 ] } }"));
}

TEST_F(ModelConfigTensorValidatorTest, ReshapeVariableDimsMustMatchDims) {
  ExpectError(
      WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 16 ] reshape { shape: [ -1, 4 ] } }"),
      "input 'x' reshape", "has 1 variable (-1) dimensions but dims [16] has 0");
}

TEST_F(ModelConfigTensorValidatorTest, ReshapeMaySplitAroundVariableDims) {
  ExpectValid(
      WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 2, 4, -1, 6 ] "
                "reshape { shape: [ 8, -1, 1, 6 ] } }"));
  ExpectError(WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 2, 4, -1, 6 ] "
                        "reshape { shape: [ 4, -1, 12 ] } }"),
              "input 'x' reshape", "same number of elements");
}

TEST_F(ModelConfigTensorValidatorTest, ReshapeDimMustBeMinusOneOrPositive) {
  ExpectError(
      WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ 0 ] } }"),
      "input 'x' reshape shape[0]", "must be -1 or positive, got 0");
}

TEST_F(ModelConfigTensorValidatorTest, EmptyReshapeGivesScalarPerBatchEntry) {
  ExpectValid(WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } }"));
}

TEST_F(ModelConfigTensorValidatorTest, EmptyReshapeNeedsBatching) {
  inference::ModelConfig config =
      WithInput("{ name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } }");
  config.set_max_batch_size(0);
  ExpectError(config, "input 'x' reshape", "needs max_batch_size > 0");
}

TEST_F(ModelConfigTensorValidatorTest, ShapeTensorMustBeInt32OrInt64) {
  ExpectError(WithInput("{ name: \"s\" data_type: TYPE_FP32 dims: [ 2 ] is_shape_tensor: true }"),
              "input 's' is_shape_tensor", "TYPE_INT32 or TYPE_INT64, got TYPE_FP32");
}

TEST_F(ModelConfigTensorValidatorTest, ShapeTensorHasOneDimension) {
  ExpectError(
      WithOutput("{ name: \"s\" data_type: TYPE_INT32 dims: [ 2, 2 ] is_shape_tensor: true }"),
      "output 's' is_shape_tensor", "exactly one dimension, got dims [2,2]");
  ExpectValid(WithInput("{ name: \"s\" data_type: TYPE_INT32 dims: [ 1 ] is_shape_tensor: true }"));
}

TEST_F(ModelConfigTensorValidatorTest, ImageFormatNeedsThreeDims) {
  ExpectError(
      WithInput("{ name: \"img\" data_type: TYPE_FP32 format: FORMAT_NHWC dims: [ 224, 224 ] }"),
      "input 'img' format", "FORMAT_NHWC needs exactly 3 dims");
  ExpectValid(WithInput(
      "{ name: \"img\" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224, 224 ] }"));
}

TEST_F(ModelConfigTensorValidatorTest, NonLinearFormatOnlyForTensorRT) {
  ExpectError(
      WithInput(
          "{ name: \"x\" data_type: TYPE_FP32 dims: [ 3, 4, 4 ] is_non_linear_format_io: true }"),
      "input 'x' is_non_linear_format_io", "only for platform 'tensorrt_plan'");
}

TEST_F(ModelConfigTensorValidatorTest, BatchInputSourceMustBeAnInput) {
  ExpectError(
      With("batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: \"N\" data_type: TYPE_INT32 "
           "source_input: \"nope\" } ]"),
      "batch_input[0] source_input", "'nope' is not an input");
  ExpectValid(
      With("batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: \"N\" data_type: TYPE_INT32 "
           "source_input: \"INPUT0\" } ]"));
}

TEST_F(ModelConfigTensorValidatorTest, BatchOutputTargetMustBeAnOutput) {
  ExpectError(With("batch_output [ { target_name: \"nope\" source_input: \"INPUT0\" } ]"),
              "batch_output[0] target_name", "'nope' is not an output");
}

}  // namespace
}  // namespace inferd
