#include "core/config/ensemble_validator.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace inferd {
namespace {

using ::testing::HasSubstr;

inference::ModelConfig Parse(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

// An identity-like model of FP32 [16] tensors IN -> OUT.
std::string Model(const std::string& name, int max_batch_size = 8,
                  const std::string& datatype = "TYPE_FP32") {
  return "name: '" + name + "' max_batch_size: " + std::to_string(max_batch_size) +
         " input [ { name: 'IN' data_type: " + datatype +
         " dims: [ 16 ] } ] output [ { name: 'OUT' data_type: " + datatype +
         " dims: [ 16 ] } ]";
}

// A step running `model` reading tensor `in` and writing tensor `out`.
std::string Step(const std::string& model, const std::string& in, const std::string& out) {
  return "step { model_name: '" + model + "' model_version: -1 input_map { key: 'IN' value: '" +
         in + "' } output_map { key: 'OUT' value: '" + out + "' } }";
}

std::string Ensemble(const std::string& steps, const std::string& outputs = "'E_OUT'",
                     int max_batch_size = 8) {
  std::string text = "name: 'ens' platform: 'ensemble' max_batch_size: " +
                     std::to_string(max_batch_size) +
                     " input [ { name: 'E_IN' data_type: TYPE_FP32 dims: [ 16 ] } ]";
  std::string rest = outputs;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string name = rest.substr(0, comma);
    text += " output [ { name: " + name + " data_type: TYPE_FP32 dims: [ 16 ] } ]";
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return text + " ensemble_scheduling { " + steps + " }";
}

class EnsembleValidatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    models_["a"] = Parse(Model("a"));
    models_["b"] = Parse(Model("b"));
    models_["c"] = Parse(Model("c"));
  }

  Status Validate(const std::string& ensemble) {
    return ValidateEnsemble(Parse(ensemble), [this](const std::string& name, int64_t)
                                                 -> StatusOr<const inference::ModelConfig*> {
      auto found = models_.find(name);
      if (found == models_.end()) return Status::NotFound("model '" + name + "' is not loaded");
      return &found->second;
    });
  }

  void ExpectError(const std::string& ensemble, const std::string& problem) {
    const Status status = Validate(ensemble);
    ASSERT_FALSE(status.ok()) << "expected: " << problem;
    EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
    EXPECT_THAT(status.message(), ::testing::StartsWith("ensemble 'ens': "));
    EXPECT_THAT(status.message(), HasSubstr(problem));
  }

  std::map<std::string, inference::ModelConfig> models_;
};

TEST_F(EnsembleValidatorTest, LinearPipelineIsValid) {
  const Status status = Validate(Ensemble(Step("a", "E_IN", "t") + Step("b", "t", "E_OUT")));
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST_F(EnsembleValidatorTest, DiamondIsValidWhateverTheStepOrder) {
  models_["join"] = Parse(
      "name: 'join' max_batch_size: 8 input [ { name: 'X' data_type: TYPE_FP32 dims: [ 16 ] }, "
      "{ name: 'Y' data_type: TYPE_FP32 dims: [ 16 ] } ] output [ { name: 'OUT' data_type: "
      "TYPE_FP32 dims: [ 16 ] } ]");
  const std::string join =
      "step { model_name: 'join' model_version: -1 input_map { key: 'X' value: 'l' } "
      "input_map { key: 'Y' value: 'r' } output_map { key: 'OUT' value: 'E_OUT' } }";
  const Status status = Validate(
      Ensemble(join + Step("b", "t", "l") + Step("c", "t", "r") + Step("a", "E_IN", "t")));
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST_F(EnsembleValidatorTest, UnknownModelNamesStep) {
  ExpectError(Ensemble(Step("nope", "E_IN", "E_OUT")),
              "step[0] (model 'nope'): model 'nope' is not loaded");
}

TEST_F(EnsembleValidatorTest, StepRunningTheEnsembleItselfIsRefused) {
  ExpectError(Ensemble(Step("ens", "E_IN", "E_OUT")), "step[0] (model 'ens') runs the ensemble");
}

TEST_F(EnsembleValidatorTest, TensorProducedTwice) {
  ExpectError(Ensemble(Step("a", "E_IN", "E_OUT") + Step("b", "E_IN", "E_OUT")),
              "tensor 'E_OUT' is produced twice: by step[0] (model 'a') output 'OUT' and by "
              "step[1] (model 'b') output 'OUT'");
  ExpectError(Ensemble(Step("a", "E_IN", "E_IN") + Step("b", "E_IN", "E_OUT")),
              "tensor 'E_IN' is produced twice: by ensemble input 'E_IN'");
}

TEST_F(EnsembleValidatorTest, StepInputMustBeProduced) {
  ExpectError(Ensemble(Step("a", "missing", "E_OUT")),
              "step[0] (model 'a') input 'IN' reads tensor 'missing', which no ensemble input "
              "or step produces");
}

TEST_F(EnsembleValidatorTest, CycleIsRefused) {
  ExpectError(Ensemble(Step("a", "E_IN", "E_OUT") + Step("b", "u", "t") + Step("c", "t", "u")),
              "the steps form a cycle: step[1] (model 'b') input 'IN' waits on tensor 'u' of "
              "step[2] (model 'c')");
}

TEST_F(EnsembleValidatorTest, EveryOutputProduced) {
  ExpectError(Ensemble(Step("a", "E_IN", "E_OUT"), "'E_OUT','E_OTHER'"),
              "ensemble output 'E_OTHER' is produced by no step");
}

TEST_F(EnsembleValidatorTest, MapsNameRealTensorsOfTheModel) {
  ExpectError(Ensemble("step { model_name: 'a' model_version: -1 input_map { key: 'NOPE' "
                       "value: 'E_IN' } output_map { key: 'OUT' value: 'E_OUT' } }"),
              "step[0] (model 'a') input_map names input 'NOPE', which the model does not have");
  ExpectError(Ensemble("step { model_name: 'a' model_version: -1 input_map { key: 'IN' "
                       "value: 'E_IN' } output_map { key: 'NOPE' value: 'E_OUT' } }"),
              "step[0] (model 'a') output_map names output 'NOPE', which the model does not "
              "have");
}

TEST_F(EnsembleValidatorTest, EveryRequiredInputMapped) {
  models_["two"] = Parse(
      "name: 'two' max_batch_size: 8 input [ { name: 'IN' data_type: TYPE_FP32 dims: [ 16 ] }, "
      "{ name: 'EXTRA' data_type: TYPE_FP32 dims: [ 16 ] } ] output [ { name: 'OUT' data_type: "
      "TYPE_FP32 dims: [ 16 ] } ]");
  ExpectError(Ensemble(Step("two", "E_IN", "E_OUT")),
              "step[0] (model 'two') does not map the model's input 'EXTRA'");
  models_["two"].mutable_input(1)->set_optional(true);
  EXPECT_TRUE(Validate(Ensemble(Step("two", "E_IN", "E_OUT"))).ok());
}

TEST_F(EnsembleValidatorTest, DatatypesMustAgree) {
  models_["b"] = Parse(Model("b", 8, "TYPE_INT32"));
  ExpectError(Ensemble(Step("a", "E_IN", "t") + Step("b", "t", "E_OUT")),
              "tensor 't' is TYPE_FP32 from step[0] (model 'a') output 'OUT' but step[1] "
              "(model 'b') input 'IN' expects TYPE_INT32");
}

TEST_F(EnsembleValidatorTest, ShapesMustAgree) {
  models_["b"].mutable_input(0)->set_dims(0, 4);
  ExpectError(Ensemble(Step("a", "E_IN", "t") + Step("b", "t", "E_OUT")),
              "tensor 't' has shape [-1,16] from step[0] (model 'a') output 'OUT' but step[1] "
              "(model 'b') input 'IN' expects [-1,4]");
}

TEST_F(EnsembleValidatorTest, VariableDimensionsAgreeWithAny) {
  models_["b"].mutable_input(0)->set_dims(0, -1);
  EXPECT_TRUE(Validate(Ensemble(Step("a", "E_IN", "t") + Step("b", "t", "E_OUT"))).ok());
}

TEST_F(EnsembleValidatorTest, MaxBatchSizeNoLargerThanComposingModels) {
  models_["b"] = Parse(Model("b", 4));
  ExpectError(Ensemble(Step("a", "E_IN", "t") + Step("b", "t", "E_OUT")),
              "max_batch_size 8 is larger than step[1] (model 'b')'s max_batch_size 4");
}

TEST_F(EnsembleValidatorTest, DecoupledStepNeedsDecoupledEnsemble) {
  models_["b"].mutable_model_transaction_policy()->set_decoupled(true);
  const std::string steps = Step("a", "E_IN", "t") + Step("b", "t", "E_OUT");
  ExpectError(Ensemble(steps), "step[1] (model 'b') is decoupled (it may send several "
                               "responses), so the ensemble must be too");
  const Status status =
      Validate(Ensemble(steps) + " model_transaction_policy { decoupled: true }");
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST_F(EnsembleValidatorTest, NonBatchingEnsembleOverBatchingModelsComparesFullShapes) {
  const std::string ensemble =
      "name: 'ens' platform: 'ensemble' max_batch_size: 0 input [ { name: 'E_IN' data_type: "
      "TYPE_FP32 dims: [ 2, 16 ] } ] output [ { name: 'E_OUT' data_type: TYPE_FP32 dims: [ 2, "
      "16 ] } ] ensemble_scheduling { " + Step("a", "E_IN", "E_OUT") + " }";
  const Status status = Validate(ensemble);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace inferd
