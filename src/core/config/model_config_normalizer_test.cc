#include "core/config/model_config_normalizer.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/model_config_validator.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using Group = inference::ModelInstanceGroup;

class ModelConfigNormalizerTest : public ::testing::Test {
 protected:
  inference::ModelConfig Normalize(const std::string& text) {
    inference::ModelConfig config;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
    const Status status = NormalizeModelConfig(ctx_, &config);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return config;
  }

  ConfigContext ctx_{"m", "", "/repo/m/config.pbtxt", 0};
};

TEST_F(ModelConfigNormalizerTest, NameComesFromTheFolder) {
  EXPECT_EQ(Normalize("backend: \"identity\"").name(), "m");
  EXPECT_EQ(Normalize("name: \"given\" backend: \"identity\"").name(), "given");
}

TEST_F(ModelConfigNormalizerTest, PlatformGivesBackendAndModelFile) {
  struct Case {
    const char* platform;
    const char* backend;
    const char* file;
  };
  for (const Case& c : {Case{"onnxruntime_onnx", "onnxruntime", "model.onnx"},
                        Case{"pytorch_libtorch", "pytorch", "model.pt"},
                        Case{"tensorrt_plan", "tensorrt", "model.plan"},
                        Case{"tensorflow_graphdef", "tensorflow", "model.graphdef"},
                        Case{"tensorflow_savedmodel", "tensorflow", "model.savedmodel"}}) {
    inference::ModelConfig config = Normalize(std::string("platform: \"") + c.platform + "\"");
    EXPECT_EQ(config.backend(), c.backend) << c.platform;
    EXPECT_EQ(config.default_model_filename(), c.file) << c.platform;
  }
}

TEST_F(ModelConfigNormalizerTest, BackendGivesItsOnlyPlatform) {
  EXPECT_EQ(Normalize("backend: \"onnxruntime\"").platform(), "onnxruntime_onnx");
  EXPECT_EQ(Normalize("backend: \"pytorch\"").platform(), "pytorch_libtorch");
  EXPECT_EQ(Normalize("backend: \"tensorrt\"").platform(), "tensorrt_plan");
  EXPECT_EQ(Normalize("backend: \"tensorflow\"").platform(), "");  // two to choose from
}

TEST_F(ModelConfigNormalizerTest, BackendOnlyModels) {
  inference::ModelConfig python = Normalize("backend: \"python\"");
  EXPECT_EQ(python.platform(), "");
  EXPECT_EQ(python.default_model_filename(), "model.py");
  EXPECT_EQ(Normalize("backend: \"identity\"").default_model_filename(), "");
  EXPECT_EQ(
      Normalize("backend: \"python\" default_model_filename: \"run.py\"").default_model_filename(),
      "run.py");
}

TEST_F(ModelConfigNormalizerTest, ModelFileNameGivesPlatform) {
  inference::ModelConfig config = Normalize("default_model_filename: \"model.onnx\"");
  EXPECT_EQ(config.platform(), "onnxruntime_onnx");
  EXPECT_EQ(config.backend(), "onnxruntime");
}

TEST_F(ModelConfigNormalizerTest, EnsembleGetsNoBackendInstancesOrOptimization) {
  inference::ModelConfig config =
      Normalize("platform: \"ensemble\" ensemble_scheduling { step [ { model_name: \"a\" } ] }");
  EXPECT_EQ(config.backend(), "");
  EXPECT_EQ(config.default_model_filename(), "");
  EXPECT_EQ(config.instance_group_size(), 0);
  EXPECT_FALSE(config.has_optimization());
  EXPECT_EQ(config.version_policy().latest().num_versions(), 1u);
}

TEST_F(ModelConfigNormalizerTest, VersionPolicyDefaultsToLatestOne) {
  inference::ModelConfig config = Normalize("backend: \"identity\"");
  ASSERT_TRUE(config.version_policy().has_latest());
  EXPECT_EQ(config.version_policy().latest().num_versions(), 1u);
  EXPECT_TRUE(
      Normalize("backend: \"identity\" version_policy { all { } }").version_policy().has_all());
}

TEST_F(ModelConfigNormalizerTest, DefaultInstanceGroupIsNamedAfterTheModel) {
  inference::ModelConfig config = Normalize("backend: \"identity\"");
  ASSERT_EQ(config.instance_group_size(), 1);
  EXPECT_EQ(config.instance_group(0).name(), "m");
  EXPECT_EQ(config.instance_group(0).kind(), Group::KIND_CPU);
  EXPECT_EQ(config.instance_group(0).count(), 1);
  EXPECT_EQ(config.instance_group(0).gpus_size(), 0);
}

TEST_F(ModelConfigNormalizerTest, UnnamedGroupsAreNamedByIndex) {
  inference::ModelConfig config = Normalize(
      "backend: \"identity\" instance_group [ { name: \"a\" }, { count: 3 }, { kind: KIND_CPU } ]");
  ASSERT_EQ(config.instance_group_size(), 3);
  EXPECT_EQ(config.instance_group(0).name(), "a");
  EXPECT_EQ(config.instance_group(1).name(), "m_1");
  EXPECT_EQ(config.instance_group(1).count(), 3);
  EXPECT_EQ(config.instance_group(2).name(), "m_2");
}

TEST_F(ModelConfigNormalizerTest, CpuCountDefaultsToTwoForOnnxRuntimeAndTensorFlow) {
  EXPECT_EQ(Normalize("backend: \"onnxruntime\"").instance_group(0).count(), 2);
  EXPECT_EQ(Normalize("platform: \"tensorflow_savedmodel\"").instance_group(0).count(), 2);
  EXPECT_EQ(Normalize("backend: \"pytorch\"").instance_group(0).count(), 1);
}

TEST_F(ModelConfigNormalizerTest, AutoKindBecomesGpuWhenTheBackendCanUseOne) {
  ctx_.gpu_count = 2;
  inference::ModelConfig config = Normalize("platform: \"onnxruntime_onnx\"");
  EXPECT_EQ(config.instance_group(0).kind(), Group::KIND_GPU);
  EXPECT_EQ(config.instance_group(0).count(), 1);
  EXPECT_THAT(config.instance_group(0).gpus(), ElementsAre(0, 1));
  EXPECT_EQ(Normalize("backend: \"identity\"").instance_group(0).kind(), Group::KIND_CPU);
}

TEST_F(ModelConfigNormalizerTest, AutoKindListingAMissingGpuBecomesCpu) {
  ctx_.gpu_count = 1;
  inference::ModelConfig config =
      Normalize("backend: \"pytorch\" instance_group [ { gpus: [ 3 ] } ]");
  EXPECT_EQ(config.instance_group(0).kind(), Group::KIND_CPU);
}

TEST_F(ModelConfigNormalizerTest, GpuGroupWithoutGpusGetsEveryGpu) {
  ctx_.gpu_count = 3;
  inference::ModelConfig config = Normalize(
      "backend: \"pytorch\" instance_group [ { kind: KIND_GPU }, { kind: KIND_GPU gpus: [ 2 ] } ]");
  EXPECT_THAT(config.instance_group(0).gpus(), ElementsAre(0, 1, 2));
  EXPECT_THAT(config.instance_group(1).gpus(), ElementsAre(2));
}

TEST_F(ModelConfigNormalizerTest, PinnedMemoryIsEnabledUnlessSaidOtherwise) {
  inference::ModelConfig config = Normalize("backend: \"identity\"");
  EXPECT_TRUE(config.optimization().input_pinned_memory().enable());
  EXPECT_TRUE(config.optimization().output_pinned_memory().enable());
  EXPECT_EQ(config.optimization().priority(), inference::ModelOptimizationPolicy::PRIORITY_DEFAULT);
  config =
      Normalize("backend: \"identity\" optimization { input_pinned_memory { enable: false } }");
  EXPECT_FALSE(config.optimization().input_pinned_memory().enable());
  EXPECT_TRUE(config.optimization().output_pinned_memory().enable());
}

TEST_F(ModelConfigNormalizerTest, PreferredBatchSizeDefaultsToMaxBatchSize) {
  inference::ModelConfig config =
      Normalize("backend: \"identity\" max_batch_size: 8 dynamic_batching { }");
  EXPECT_THAT(config.dynamic_batching().preferred_batch_size(), ElementsAre(8));
  EXPECT_EQ(config.dynamic_batching().max_queue_delay_microseconds(), 0u);
  config = Normalize("backend: \"identity\" dynamic_batching { }");
  EXPECT_EQ(config.dynamic_batching().preferred_batch_size_size(), 0);
  EXPECT_FALSE(Normalize("backend: \"identity\" max_batch_size: 8").has_dynamic_batching());
}

TEST_F(ModelConfigNormalizerTest, SequenceBatchingDefaults) {
  inference::ModelConfig config =
      Normalize("backend: \"identity\" max_batch_size: 4 sequence_batching { oldest { } }");
  EXPECT_EQ(config.sequence_batching().max_sequence_idle_microseconds(), 1000000u);
  EXPECT_THAT(config.sequence_batching().oldest().preferred_batch_size(), ElementsAre(4));
}

TEST_F(ModelConfigNormalizerTest, NormalizingTwiceChangesNothing) {
  inference::ModelConfig once = Normalize("platform: \"onnxruntime_onnx\" instance_group [ { } ]");
  inference::ModelConfig twice = once;
  ASSERT_TRUE(NormalizeModelConfig(ctx_, &twice).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(once, twice));
}

TEST_F(ModelConfigNormalizerTest, PlatformIsDetectedFromTheModelFile) {
  ctx_.model_dir = fs::temp_directory_path() / ("inferd_normalizer_" + std::to_string(::getpid()));
  fs::create_directories(ctx_.model_dir / "3");
  fs::create_directories(ctx_.model_dir / "12");
  std::ofstream(ctx_.model_dir / "3" / "model.pt") << "x";
  std::ofstream(ctx_.model_dir / "12" / "model.onnx") << "x";
  inference::ModelConfig config = Normalize("");
  EXPECT_EQ(config.platform(), "pytorch_libtorch");  // version 3 is the lowest
  EXPECT_EQ(config.backend(), "pytorch");
  fs::remove(ctx_.model_dir / "3" / "model.pt");
  std::ofstream(ctx_.model_dir / "3" / "model.py") << "x";
  config = Normalize("");
  EXPECT_EQ(config.backend(), "python");
  EXPECT_EQ(config.default_model_filename(), "model.py");
  fs::remove_all(ctx_.model_dir);
}

TEST_F(ModelConfigNormalizerTest, NormalizedDocumentedMinimalConfigIsValid) {
  inference::ModelConfig config = Normalize(R"pb(
    platform: "tensorrt_plan"
    max_batch_size: 8 input
    [ {
      name: "input0"
      data_type: TYPE_FP32
      dims: [ 16 ]
    }] output
    [ {
      name: "output0"
      data_type: TYPE_FP32
      dims: [ 16 ]
    }]
  )pb");
  const Status status = ValidateModelConfig(ctx_, config);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace inferd
