#include "core/cloud/gcs_store.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/test_util/fake_cloud.h"
#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

// A store of gs://bucket/repo over a fake transport, with `env` as the environment.
// A store opened over a fake cloud.
struct Fixture : FakeCloud {
  using FakeCloud::FakeCloud;
  std::unique_ptr<ObjectStore> Open(const std::string& url = "gs://bucket/repo") {
    auto store = OpenGcsStore(ParseCloudUrl(url).value(), context());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
};

// Two pages: the first ends with a token the second request must carry.
HttpResponse ListingPage(const HttpRequest& request) {
  if (request.url.find("pageToken=") == std::string::npos) {
    return CloudAnswer(200, R"({"items": [
        {"name": "repo/m/config.pbtxt", "size": "12", "generation": "7",
         "md5Hash": "XrY7u+Ae7tCTyyK7j1rNww==", "crc32c": "yZRlqg=="},
        {"name": "repo/m/1/", "size": "0", "generation": "1"}],
        "nextPageToken": "p/2"})");
  }
  return CloudAnswer(200, R"({"items": [
      {"name": "repo/m/1/model.py", "size": "5", "generation": "8",
       "md5Hash": "XrY7u+Ae7tCTyyK7j1rNww=="}]})");
}

TEST(GcsStoreTest, ListsEveryPageUnderTheRootWithGenerationsAndCrc32cElseMd5) {
  Fixture f(ListingPage, {{"STORAGE_EMULATOR_HOST", "127.0.0.1:4443"}});
  auto objects = f.Open()->List("m/");
  ASSERT_TRUE(objects.ok()) << objects.status().ToString();
  ASSERT_EQ(objects->size(), 2u);  // the folder marker is left out
  EXPECT_EQ((*objects)[0].key, "m/1/model.py");
  EXPECT_EQ((*objects)[0].version, "8");
  EXPECT_EQ((*objects)[1].key, "m/config.pbtxt");
  EXPECT_EQ((*objects)[1].size, 12u);
  EXPECT_EQ((*objects)[0].checksum.kind, ChecksumKind::kMd5);  // no crc32c listed
  EXPECT_EQ((*objects)[0].checksum.Text(), "5eb63bbbe01eeed093cb22bb8f5acdc3");
  // Both listed: the CRC32C, cheaper to compute.
  EXPECT_EQ((*objects)[1].checksum.kind, ChecksumKind::kCrc32c);
  EXPECT_EQ((*objects)[1].checksum.Text(), "yZRlqg==");
  const auto sent = f.transport->sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].url.rfind("http://127.0.0.1:4443/storage/v1/b/bucket/o?prefix=repo%2Fm%2F&", 0),
            0u)
      << sent[0].url;
  EXPECT_NE(sent[1].url.find("&pageToken=p%2F2"), std::string::npos) << sent[1].url;
  for (const auto& request : sent) {
    for (const auto& header : request.headers) EXPECT_NE(header.first, "Authorization");
  }
}

TEST(GcsStoreTest, DownloadsARangeOfTheListedGenerationWithABearerToken) {
  TempDir dir;
  dir.WriteFile("sa.json", R"({"type": "authorized_user", "client_id": "i", "client_secret": "s",
                              "refresh_token": "r", "token_uri": "http://127.0.0.1:9/token"})");
  Fixture f(
      [](const HttpRequest& request) {
        if (request.method == "POST") {
          return CloudAnswer(200, R"({"access_token": "tok", "expires_in": 3600})");
        }
        return CloudAnswer(206, "llo", {{"x-goog-generation", "7"}});
      },
      {{"GOOGLE_APPLICATION_CREDENTIALS", (dir.path() / "sa.json").string()}});
  const ObjectInfo object{"m/a b.txt", 11, "7", {}};
  ASSERT_TRUE(f.Open()->Download(object, dir.path() / "out", ByteRange{2, 4}).ok());
  const HttpRequest get = f.transport->sent().at(1);
  EXPECT_EQ(get.url, "https://storage.googleapis.com/storage/v1/b/bucket/o/"
                     "repo%2Fm%2Fa%20b.txt?alt=media&ifGenerationMatch=7");
  EXPECT_EQ(get.expected_body_bytes, 3u);
  bool bearer = false, range = false;
  for (const auto& [name, value] : get.headers) {
    bearer |= name == "Authorization" && value == "Bearer tok";
    range |= name == "Range" && value == "bytes=2-4";
  }
  EXPECT_TRUE(bearer && range);
}

TEST(GcsStoreTest, ATokenRefusedWith401IsRenewedOnceAndTheRequestSentAgain) {
  TempDir dir;
  dir.WriteFile("sa.json", R"({"type": "authorized_user", "client_id": "i", "client_secret": "s",
                              "refresh_token": "r", "token_uri": "http://127.0.0.1:9/token"})");
  int tokens = 0;
  bool revoke_every_token = false;
  Fixture f(
      [&](const HttpRequest& request) {
        if (request.method == "POST") {
          return CloudAnswer(200, R"({"access_token": "tok-)" + std::to_string(++tokens) +
                                      R"(", "expires_in": 3600})");
        }
        const bool first = std::any_of(request.headers.begin(), request.headers.end(),
                                       [](const auto& h) { return h.second == "Bearer tok-1"; });
        if (first || revoke_every_token) {
          return CloudAnswer(401, R"({"error": {"code": 401, "message": "Invalid Credentials",
              "errors": [{"reason": "authError", "message": "Invalid Credentials"}]}})");
        }
        return CloudAnswer(200, R"({"items": []})");
      },
      {{"GOOGLE_APPLICATION_CREDENTIALS", (dir.path() / "sa.json").string()}});
  auto store = f.Open();
  ASSERT_TRUE(store->List("").ok());  // tok-1 refused, tok-2 fetched and accepted
  EXPECT_EQ(tokens, 2);
  ASSERT_TRUE(store->List("").ok());  // tok-2 kept
  EXPECT_EQ(tokens, 2);
  revoke_every_token = true;  // a key revoked: one renewal, then the refusal is the answer
  const auto refused = store->List("");
  EXPECT_EQ(tokens, 3);
  EXPECT_EQ(refused.status().message(),
            "gs://bucket/repo: authError (HTTP 401): Invalid Credentials");
}

TEST(GcsStoreTest, WithoutAFileTheMetadataServerOfGceMetadataHostGivesTheToken) {
  Fixture f(
      [](const HttpRequest& request) {
        if (request.url.find("/computeMetadata/") != std::string::npos) {
          return CloudAnswer(200, R"({"access_token": "gce-tok", "expires_in": 3599,
                                      "token_type": "Bearer"})");
        }
        return CloudAnswer(200, R"({"items": []})");
      },
      {{"GCE_METADATA_HOST", "169.254.169.254:8080"}});
  ASSERT_TRUE(f.Open()->List("").ok());
  const auto sent = f.transport->sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].method, "GET");
  EXPECT_EQ(sent[0].url, "http://169.254.169.254:8080/computeMetadata/v1/instance/"
                         "service-accounts/default/token");
  EXPECT_EQ(sent[0].headers, (HttpHeaders{{"Metadata-Flavor", "Google"}}));
  EXPECT_EQ(sent[1].headers, (HttpHeaders{{"Authorization", "Bearer gce-tok"}}));
}

TEST(GcsStoreTest, AnotherGenerationInTheAnswerIsAnError) {
  TempDir dir;
  Fixture f([](const HttpRequest&) {
    return CloudAnswer(200, "new", {{"x-goog-generation", "9"}});
  });
  const Status status = f.Open()->Download({"m/x", 3, "7", {}}, dir.path() / "out", std::nullopt);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("conditionNotMet"), std::string::npos) << status.message();
}

TEST(GcsStoreTest, ErrorsNameTheUrlTheObjectAndGooglesReason) {
  TempDir dir;
  Fixture f([](const HttpRequest&) {
    return CloudAnswer(404, R"({"error": {"code": 404, "message": "No such object: bucket/repo/m/x",
        "errors": [{"reason": "notFound", "message": "No such object"}]}})");
  });
  const Status status = f.Open()->Download({"m/x", 3, "7", {}}, dir.path() / "out", std::nullopt);
  EXPECT_EQ(status.code(), Status::Code::kNotFound);
  EXPECT_EQ(status.message(),
            "gs://bucket/repo: object 'm/x': notFound (HTTP 404): No such object: bucket/repo/m/x");
}

TEST(GcsStoreTest, AnUnreadableCredentialsFileFailsTheOpenNamingIt) {
  Fixture f([](const HttpRequest&) { return CloudAnswer(500, ""); },
            {{"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/sa.json"}});
  auto store = OpenGcsStore(ParseCloudUrl("gs://bucket").value(),
                            f.context());
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("/nonexistent/sa.json"), std::string::npos);
  EXPECT_TRUE(f.transport->sent().empty());
}

}  // namespace
}  // namespace inferd
