#include "core/cloud/cloud_url.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

CloudUrl Parse(const std::string& url) {
  StatusOr<CloudUrl> parsed = ParseCloudUrl(url);
  EXPECT_TRUE(parsed.ok()) << url << ": " << parsed.status().ToString();
  return parsed.ok() ? *parsed : CloudUrl{};
}

TEST(CloudUrlTest, S3BucketAndPath) {
  const CloudUrl url = Parse("s3://models/prod/repo/");
  EXPECT_EQ(url.scheme, "s3");
  EXPECT_EQ(url.endpoint, "");
  EXPECT_EQ(url.bucket, "models");
  EXPECT_EQ(url.prefix, "prod/repo");
  EXPECT_EQ(url.RootPrefix(), "prod/repo/");
  EXPECT_EQ(url.text, "s3://models/prod/repo");
}

TEST(CloudUrlTest, S3WholeBucket) {
  const CloudUrl url = Parse("s3://models");
  EXPECT_EQ(url.bucket, "models");
  EXPECT_EQ(url.prefix, "");
  EXPECT_EQ(url.RootPrefix(), "");
}

TEST(CloudUrlTest, S3HostPortIsAnHttpEndpoint) {
  const CloudUrl url = Parse("s3://127.0.0.1:9000/models/repo");
  EXPECT_EQ(url.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(url.bucket, "models");
  EXPECT_EQ(url.prefix, "repo");
}

TEST(CloudUrlTest, S3HttpsEndpoint) {
  const CloudUrl url = Parse("s3://https://minio.example.com:443/models/a/b");
  EXPECT_EQ(url.endpoint, "https://minio.example.com:443");
  EXPECT_EQ(url.bucket, "models");
  EXPECT_EQ(url.prefix, "a/b");
  EXPECT_EQ(Parse("s3://http://localhost:9000/m").endpoint, "http://localhost:9000");
}

TEST(CloudUrlTest, GcsBucketAndPath) {
  const CloudUrl url = Parse("gs://bucket/path/to/repo");
  EXPECT_EQ(url.scheme, "gs");
  EXPECT_EQ(url.bucket, "bucket");
  EXPECT_EQ(url.prefix, "path/to/repo");
}

TEST(CloudUrlTest, AzureAccountContainerPath) {
  const CloudUrl url = Parse("as://account/container/path/repo");
  EXPECT_EQ(url.scheme, "as");
  EXPECT_EQ(url.account, "account");
  EXPECT_EQ(url.bucket, "container");
  EXPECT_EQ(url.prefix, "path/repo");
  EXPECT_EQ(Parse("as://account/container").prefix, "");
}

TEST(CloudUrlTest, RefusesWhatIsNotARepository) {
  for (const char* bad : {"s3://", "s3:///", "s3://host:9000/", "s3://https://nohostport/b",
                          "gs://", "as://account", "as://account/", "/local/path", "http://x/y"}) {
    StatusOr<CloudUrl> parsed = ParseCloudUrl(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArg);
    EXPECT_NE(parsed.status().message().find(bad), std::string::npos) << parsed.status().message();
  }
}

TEST(CloudUrlTest, TellsCloudUrlsFromLocalPaths) {
  EXPECT_TRUE(IsCloudUrl("s3://b"));
  EXPECT_TRUE(IsCloudUrl("gs://b"));
  EXPECT_TRUE(IsCloudUrl("as://a/c"));
  EXPECT_FALSE(IsCloudUrl("/models"));
  EXPECT_FALSE(IsCloudUrl("models/s3://x"));
}

}  // namespace
}  // namespace inferd
