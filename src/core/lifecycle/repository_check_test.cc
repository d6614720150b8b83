// CheckRepository: what loading would do, found without loading: versions,
// the backend library each would use, and each reason a model would not load.
#include "core/lifecycle/repository_check.h"

#include <gtest/gtest.h>

#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

std::string IdentityConfig(const std::string& name) {
  return "name: \"" + name + "\" backend: \"identity\" max_batch_size: 4\n"
         "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
         "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n";
}

class RepositoryCheckTest : public testing::Test {
 protected:
  RepositoryCheckTest() {
    backends_.WriteFile("identity/libinferd_identity.so", "not loaded, only found");
    options_.repositories = {repo_.path()};
    options_.backend_directory = backends_.path();
  }

  TempDir repo_;
  TempDir backends_;
  RepositoryCheckOptions options_;
};

TEST_F(RepositoryCheckTest, AGoodModelReportsItsVersionsAndLibrary) {
  repo_.WriteFile("good/config.pbtxt", IdentityConfig("good"));
  repo_.MakeDir("good/1");
  repo_.MakeDir("good/3");
  auto checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 1u);
  const ModelCheck& good = checks->at(0);
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(good.versions, std::vector<int64_t>{3});  // the default policy: latest 1
  EXPECT_EQ(good.backend, "identity");
  ASSERT_EQ(good.libraries.size(), 1u);
  EXPECT_EQ(good.libraries[0], (backends_.path() / "identity/libinferd_identity.so").string());
}

TEST_F(RepositoryCheckTest, ModelConfigNamePicksConfigsNamePbtxtElseConfigPbtxt) {
  repo_.WriteFile("both/config.pbtxt", IdentityConfig("both"));
  repo_.WriteFile("both/configs/big.pbtxt",
                  IdentityConfig("both") + "version_policy { all { } }\n");
  repo_.MakeDir("both/1");
  repo_.MakeDir("both/2");
  repo_.WriteFile("plain/config.pbtxt", IdentityConfig("plain"));
  repo_.MakeDir("plain/1");
  repo_.MakeDir("plain/2");
  options_.model_config_name = "big";
  auto checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 2u);
  EXPECT_EQ(checks->at(0).versions, (std::vector<int64_t>{1, 2}));  // configs/big.pbtxt
  EXPECT_EQ(checks->at(1).versions, std::vector<int64_t>{2});       // config.pbtxt: latest 1
  options_.model_config_name.clear();
  checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok());
  EXPECT_EQ(checks->at(0).versions, std::vector<int64_t>{2});
}

TEST_F(RepositoryCheckTest, WithoutStrictConfigAMinimalConfigWaitsForItsBackend) {
  repo_.WriteFile("minimal/config.pbtxt", "backend: \"identity\" max_batch_size: 4\n");
  repo_.MakeDir("minimal/1");
  options_.strict_model_config = false;
  auto checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok());
  EXPECT_TRUE(checks->at(0).ok());
  options_.strict_model_config = true;
  checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok());
  ASSERT_EQ(checks->at(0).errors.size(), 1u);
  EXPECT_NE(checks->at(0).errors[0].find("input: the model must declare at least one input"),
            std::string::npos)
      << checks->at(0).errors[0];
}

TEST_F(RepositoryCheckTest, EachFailureIsALineNamingTheModel) {
  repo_.WriteFile("broken/config.pbtxt", "name: \"broken\" max_batch_size: [");
  repo_.MakeDir("broken/1");
  repo_.WriteFile("nobackend/config.pbtxt",
                  "name: \"nobackend\" backend: \"absent\" max_batch_size: 0\n"
                  "input [ { name: \"I\" data_type: TYPE_FP32 dims: [ 1 ] } ]\n"
                  "output [ { name: \"O\" data_type: TYPE_FP32 dims: [ 1 ] } ]\n");
  repo_.MakeDir("nobackend/2");
  auto checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 2u);
  const ModelCheck& broken = checks->at(0);
  EXPECT_FALSE(broken.ok());
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_EQ(broken.errors[0].rfind("broken: ", 0), 0u) << broken.errors[0];
  EXPECT_NE(broken.errors[0].find("config.pbtxt"), std::string::npos) << broken.errors[0];
  const ModelCheck& nobackend = checks->at(1);
  EXPECT_FALSE(nobackend.ok());
  ASSERT_EQ(nobackend.errors.size(), 1u);
  EXPECT_EQ(nobackend.errors[0].rfind("model 'nobackend' version 2: backend 'absent' not found", 0),
            0u)
      << nobackend.errors[0];
}

TEST_F(RepositoryCheckTest, ChecksOnlyTheNamedModelsAndReportsUnknownNames) {
  repo_.WriteFile("a/config.pbtxt", IdentityConfig("a"));
  repo_.MakeDir("a/1");
  repo_.WriteFile("b/config.pbtxt", IdentityConfig("b"));
  repo_.MakeDir("b/1");
  options_.models = {"b", "ghost"};
  auto checks = CheckRepository(options_);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 2u);
  EXPECT_EQ(checks->at(0).name, "b");
  EXPECT_TRUE(checks->at(0).ok());
  EXPECT_EQ(checks->at(1).name, "ghost");
  EXPECT_FALSE(checks->at(1).in_repository);
  EXPECT_EQ(checks->at(1).errors, std::vector<std::string>{"ghost: no such model in the repositories"});
}

TEST_F(RepositoryCheckTest, AnUnreadableRepositoryIsAnError) {
  options_.repositories = {repo_.path() / "missing"};
  EXPECT_FALSE(CheckRepository(options_).ok());
}

TEST(RepositoryCheckJsonTest, RendersEveryField) {
  ModelCheck check;
  check.name = "m";
  check.versions = {1, 2};
  check.backend = "identity";
  check.libraries = {"/b/identity/libinferd_identity.so"};
  EXPECT_EQ(RepositoryCheckJson({check}),
            "{\"models\":[{\"name\":\"m\",\"in_repository\":true,\"ok\":true,\"errors\":[],"
            "\"problems\":[],\"versions\":[1,2],\"backend\":\"identity\","
            "\"libraries\":[\"/b/identity/libinferd_identity.so\"],"
            "\"completed_by_backend\":false}]}");
}

}  // namespace
}  // namespace inferd
