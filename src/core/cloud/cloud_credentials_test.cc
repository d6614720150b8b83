#include "core/cloud/cloud_credentials.h"

#include <gtest/gtest.h>

#include <map>

#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

EnvReader Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

constexpr const char* kFile = R"({
  "s3": {
    "": {"key_id": "K0", "secret_key": "S0", "region": "us-east-1", "session_token": "", "profile": ""},
    "s3://bucket-2": {"key_id": "K2", "secret_key": "S2", "region": "eu-west-1",
                      "session_token": "T2", "profile": "P2"},
    "s3://bucket-2/deeper": {"key_id": "K3", "secret_key": "S3", "region": "eu-west-3"}
  },
  "gs": {"": "/creds/default.json", "gs://gcs-bucket-002": "/creds/two.json"},
  "as": {"as://Account-002/Container": {"account_str": "acc2", "account_key": "a2V5"}}
})";

TEST(CloudCredentialsTest, LongestMatchingPrefixWins) {
  auto creds = CloudCredentials::FromJson(kFile, "test.json", Env({}));
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->ForS3("s3://other/repo").key_id, "K0");
  const S3Credentials two = creds->ForS3("s3://bucket-2/repo");
  EXPECT_EQ(two.key_id, "K2");
  EXPECT_EQ(two.secret_key, "S2");
  EXPECT_EQ(two.region, "eu-west-1");
  EXPECT_EQ(two.session_token, "T2");
  EXPECT_EQ(two.profile, "P2");
  EXPECT_EQ(creds->ForS3("s3://bucket-2/deeper/repo").key_id, "K3");
  EXPECT_EQ(creds->ForGcs("gs://gcs-bucket-002/model_repository").path, "/creds/two.json");
  EXPECT_EQ(creds->ForGcs("gs://any-other-gcs-bucket").path, "/creds/default.json");
  const AzureCredentials azure = creds->ForAzure("as://Account-002/Container/repo");
  EXPECT_EQ(azure.account_str, "acc2");
  EXPECT_EQ(azure.account_key, "a2V5");
}

TEST(CloudCredentialsTest, NoMatchFallsBackToTheEnvironment) {
  auto creds = CloudCredentials::FromJson(
      kFile, "test.json",
      Env({{"AZURE_STORAGE_ACCOUNT", "envacc"}, {"AZURE_STORAGE_KEY", "ZW52"}}));
  ASSERT_TRUE(creds.ok());
  const AzureCredentials azure = creds->ForAzure("as://other/container");
  EXPECT_EQ(azure.account_str, "envacc");
  EXPECT_EQ(azure.account_key, "ZW52");
}

TEST(CloudCredentialsTest, EnvironmentWithoutAFile) {
  auto creds = CloudCredentials::Load(Env({{"AWS_ACCESS_KEY_ID", "AK"},
                                           {"AWS_SECRET_ACCESS_KEY", "SK"},
                                           {"AWS_SESSION_TOKEN", "TOK"},
                                           {"AWS_DEFAULT_REGION", "ap-south-1"},
                                           {"AWS_ENDPOINT_URL", "http://127.0.0.1:9000"},
                                           {"GOOGLE_APPLICATION_CREDENTIALS", "/sa.json"}}));
  ASSERT_TRUE(creds.ok());
  const S3Credentials s3 = creds->ForS3("s3://b/r");
  EXPECT_EQ(s3.key_id, "AK");
  EXPECT_EQ(s3.secret_key, "SK");
  EXPECT_EQ(s3.session_token, "TOK");
  EXPECT_EQ(s3.region, "ap-south-1");
  EXPECT_EQ(s3.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(creds->ForGcs("gs://b").path, "/sa.json");
  EXPECT_EQ(creds->ForAzure("as://a/c").account_key, "");
}

TEST(CloudCredentialsTest, AwsRegionIsTheSecondChoice) {
  auto creds = CloudCredentials::Load(Env({{"AWS_REGION", "eu-north-1"}}));
  ASSERT_TRUE(creds.ok());
  EXPECT_EQ(creds->ForS3("s3://b").region, "eu-north-1");
}

TEST(CloudCredentialsTest, ReadsTheFileTheVariableNames) {
  TempDir dir;
  dir.WriteFile("creds.json", kFile);
  auto creds = CloudCredentials::Load(
      Env({{"TRITON_CLOUD_CREDENTIAL_PATH", (dir.path() / "creds.json").string()}}));
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->ForS3("s3://bucket-2").key_id, "K2");
}

TEST(CloudCredentialsTest, BadFilesAreErrorsNamingTheFile) {
  auto missing = CloudCredentials::Load(Env({{"TRITON_CLOUD_CREDENTIAL_PATH", "/no/such.json"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/no/such.json"), std::string::npos);
  for (const char* bad : {"not json", "[]", R"({"s3": []})", R"({"s3": {"": "x"}})",
                          R"({"gs": {"": {}}})", R"({"as": {"": 3}})"}) {
    auto parsed = CloudCredentials::FromJson(bad, "bad.json", Env({}));
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArg);
    EXPECT_NE(parsed.status().message().find("bad.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace inferd
