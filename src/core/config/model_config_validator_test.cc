#include "core/config/model_config_validator.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/config/validator_test_fixture.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;

class ModelConfigValidatorTest : public ConfigValidatorFixture {};

TEST_F(ModelConfigValidatorTest, NormalizedBaseConfigIsValid) { ExpectValid(With("")); }

TEST_F(ModelConfigValidatorTest, ErrorMessageNamesModelFileAndField) {
  inference::ModelConfig config = With("");
  config.mutable_input(0)->add_dims(0);
  EXPECT_EQ(ValidateModelConfig(ctx_, config).message(),
            "model 'simple' (/repo/simple/config.pbtxt): input 'INPUT0' dims[1]: "
            "must be -1 or positive, got 0; fix: -1 for a size that varies, else the size");
}

TEST_F(ModelConfigValidatorTest, NameMustMatchFolder) {
  ExpectError(With("name: \"other\""), "name", "folder is 'simple'");
}

TEST_F(ModelConfigValidatorTest, PlatformOrBackendIsRequired) {
  inference::ModelConfig config = With("");
  config.clear_backend();
  ExpectError(config, "platform", "set platform or backend");
}

TEST_F(ModelConfigValidatorTest, UnknownPlatformWithoutBackend) {
  ExpectError(With("backend: \"\" platform: \"caffe2_netdef\""), "platform",
              "unknown platform 'caffe2_netdef'");
}

TEST_F(ModelConfigValidatorTest, PlatformAndBackendMustAgree) {
  ExpectError(With("platform: \"onnxruntime_onnx\" backend: \"pytorch\""), "backend",
              "platform 'onnxruntime_onnx' is served by backend 'onnxruntime', got 'pytorch'");
}

TEST_F(ModelConfigValidatorTest, PlatformBackendNeedsItsPlatform) {
  ExpectError(With("backend: \"tensorflow\""), "platform",
              "'tensorflow_graphdef' or 'tensorflow_savedmodel'");
}

TEST_F(ModelConfigValidatorTest, CustomBackendMayUseAnyPlatformName) {
  ExpectValid(With("platform: \"my_platform\" backend: \"custom\""));
}

TEST_F(ModelConfigValidatorTest, EnsembleHasNoBackend) {
  ExpectError(With("platform: \"ensemble\" backend: \"identity\""), "backend",
              "an ensemble has no backend");
}

TEST_F(ModelConfigValidatorTest, MaxBatchSizeMustNotBeNegative) {
  ExpectError(With("max_batch_size: -1"), "max_batch_size", "got -1");
}

TEST_F(ModelConfigValidatorTest, VersionPolicyIsRequired) {
  inference::ModelConfig config = With("");
  config.clear_version_policy();
  ExpectError(config, "version_policy", "must be set");
}

TEST_F(ModelConfigValidatorTest, LatestNeedsAtLeastOneVersion) {
  ExpectError(With("version_policy { latest { num_versions: 0 } }"),
              "version_policy latest num_versions", "at least 1");
}

TEST_F(ModelConfigValidatorTest, SpecificNeedsVersions) {
  ExpectError(With("version_policy { specific { } }"), "version_policy specific versions",
              "at least one version");
}

TEST_F(ModelConfigValidatorTest, SpecificVersionsMustBePositive) {
  ExpectError(With("version_policy { specific { versions: [ 1, 0 ] } }"),
              "version_policy specific versions[1]", "must be positive, got 0");
}

TEST_F(ModelConfigValidatorTest, AllVersionsIsValid) {
  ExpectValid(With("version_policy { all { } }"));
}

TEST_F(ModelConfigValidatorTest, InstanceCountMustBePositive) {
  ExpectError(With("instance_group [ { name: \"g\" count: -2 kind: KIND_CPU } ]"),
              "instance_group 'g' count", "at least 1, got -2");
}

TEST_F(ModelConfigValidatorTest, GpuGroupOnMachineWithoutGpu) {
  ExpectError(With("instance_group [ { name: \"x\" kind: KIND_GPU } ]"), "instance_group 'x'",
              "asks for KIND_GPU but this machine has no GPU");
}

TEST_F(ModelConfigValidatorTest, GpuIdMustExist) {
  ctx_.gpu_count = 2;
  ExpectError(With("instance_group [ { name: \"x\" kind: KIND_GPU gpus: [ 1, 2 ] } ]"),
              "instance_group 'x' gpus[1]", "GPU 2 does not exist");
}

TEST_F(ModelConfigValidatorTest, GpuGroupWithExistingGpusIsValid) {
  ctx_.gpu_count = 2;
  ExpectValid(With("instance_group [ { kind: KIND_GPU gpus: [ 1 ] } ]"));
}

TEST_F(ModelConfigValidatorTest, CpuGroupCannotListGpus) {
  ExpectError(With("instance_group [ { kind: KIND_CPU gpus: [ 0 ] } ]"),
              "instance_group 'simple_0' gpus", "KIND_CPU cannot list GPUs");
}

TEST_F(ModelConfigValidatorTest, RateLimiterResourceNeedsName) {
  ExpectError(
      With("instance_group [ { name: \"g\" rate_limiter { resources [ { count: 1 } ] } } ]"),
      "instance_group 'g' rate_limiter resources[0] name", "must not be empty");
}

TEST_F(ModelConfigValidatorTest, WarmupSampleNeedsName) {
  ExpectError(With("model_warmup [ { batch_size: 1 inputs { key: \"INPUT0\" value { "
                   "data_type: TYPE_FP32 dims: [ 16 ] zero_data: true } } } ]"),
              "model_warmup[0] name", "must not be empty");
}

TEST_F(ModelConfigValidatorTest, WarmupBatchSizeAtMostMaxBatchSize) {
  ExpectError(With("model_warmup [ { name: \"w\" batch_size: 9 } ]"), "model_warmup 'w' batch_size",
              "between 1 and max_batch_size (8), got 9");
}

TEST_F(ModelConfigValidatorTest, WarmupBatchSizeIsOneWithoutBatching) {
  ExpectError(With("max_batch_size: 0 model_warmup [ { name: \"w\" batch_size: 2 } ]"),
              "model_warmup 'w' batch_size", "must be 1 for a model that does not batch");
}

TEST_F(ModelConfigValidatorTest, WarmupInputNeedsExactlyOneDataSource) {
  ExpectError(With("model_warmup [ { name: \"w\" batch_size: 1 inputs { key: \"INPUT0\" value { "
                   "data_type: TYPE_FP32 dims: [ 16 ] } } } ]"),
              "model_warmup 'w' inputs 'INPUT0'", "zero_data, random_data or input_data_file");
}

TEST_F(ModelConfigValidatorTest, WarmupInputNeedsDataTypeAndDims) {
  ExpectError(With("model_warmup [ { name: \"w\" batch_size: 1 inputs { key: \"INPUT0\" value { "
                   "dims: [ 16 ] zero_data: true } } } ]"),
              "model_warmup 'w' inputs 'INPUT0' data_type", "must be set");
  ExpectError(With("model_warmup [ { name: \"w\" batch_size: 1 inputs { key: \"INPUT0\" value { "
                   "data_type: TYPE_FP32 random_data: true } } } ]"),
              "model_warmup 'w' inputs 'INPUT0' dims", "at least one dimension");
}

TEST_F(ModelConfigValidatorTest, ValidWarmupSample) {
  ExpectValid(
      With("model_warmup [ { name: \"w\" batch_size: 8 inputs { key: \"INPUT0\" value { "
           "data_type: TYPE_FP32 dims: [ 16 ] random_data: true } } } ]"));
}

TEST_F(ModelConfigValidatorTest, DecoupledModelCannotUseResponseCache) {
  ExpectError(With("model_transaction_policy { decoupled: true } response_cache { enable: true }"),
              "response_cache", "decoupled");
}

TEST_F(ModelConfigValidatorTest, RepositoryAgentsAreRefused) {
  ExpectError(With("model_repository_agents { agents [ { name: \"checksum\" } ] }"),
              "model_repository_agents", "checksum");
}

// Checks that look at files in the model's folder.
class ModelConfigValidatorFilesTest : public ConfigValidatorFixture {
 protected:
  void SetUp() override {
    ctx_.model_dir = fs::temp_directory_path() / ("inferd_validator_" + std::to_string(::getpid()));
    fs::create_directories(ctx_.model_dir / "warmup");
  }
  void TearDown() override { fs::remove_all(ctx_.model_dir); }
};

TEST_F(ModelConfigValidatorFilesTest, LabelFileMustExist) {
  inference::ModelConfig config = With("");
  config.mutable_output(0)->set_label_filename("labels.txt");
  ExpectError(config, "output 'OUTPUT0' label_filename", "file 'labels.txt' does not exist");
}

TEST_F(ModelConfigValidatorFilesTest, ExistingLabelFileIsValid) {
  std::ofstream(ctx_.model_dir / "labels.txt") << "cat\ndog\n";
  inference::ModelConfig config = With("");
  config.mutable_output(0)->set_label_filename("labels.txt");
  ExpectValid(config);
}

TEST_F(ModelConfigValidatorFilesTest, WarmupDataFileMustExist) {
  ExpectError(With("model_warmup [ { name: \"w\" batch_size: 1 inputs { key: \"INPUT0\" value { "
                   "data_type: TYPE_FP32 dims: [ 16 ] input_data_file: \"in.bin\" } } } ]"),
              "model_warmup 'w' inputs 'INPUT0' input_data_file", "file 'in.bin' does not exist");
}

}  // namespace
}  // namespace inferd
