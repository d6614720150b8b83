#include "core/cloud/azure_store.h"

#include <gtest/gtest.h>

#include "core/cloud/azure_rest.h"
#include "core/test_util/fake_cloud.h"
#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

constexpr char kDevKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const std::string kAzurite =
    std::string("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=") +
    kDevKey + ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;";

// A store opened over a fake cloud.
struct Fixture : FakeCloud {
  using FakeCloud::FakeCloud;
  std::unique_ptr<ObjectStore> Open(const std::string& url) {
    auto store = OpenAzureStore(ParseCloudUrl(url).value(), context());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
};

std::string Header(const HttpRequest& request, const std::string& name) {
  for (const auto& [key, value] : request.headers) {
    if (key == name) return value;
  }
  return "";
}

HttpResponse ListingPage(const HttpRequest& request) {
  if (request.url.find("marker=") == std::string::npos) {
    return CloudAnswer(200, R"(<?xml version="1.0" encoding="utf-8"?>
<EnumerationResults ServiceEndpoint="http://127.0.0.1:10000/devstoreaccount1"
    ContainerName="models">
  <Prefix>repo/</Prefix><Blobs>
    <Blob><Name>repo/m/config.pbtxt</Name><Properties><Content-Length>12</Content-Length>
      <Etag>0x8DC1</Etag><Content-MD5>XrY7u+Ae7tCTyyK7j1rNww==</Content-MD5></Properties></Blob>
    <Blob><Name>repo/m/1/</Name>
      <Properties><Content-Length>0</Content-Length><Etag>0x1</Etag></Properties></Blob>
  </Blobs><NextMarker>2!a&amp;b</NextMarker></EnumerationResults>)");
  }
  return CloudAnswer(200, R"(<?xml version="1.0" encoding="utf-8"?>
<EnumerationResults><Blobs><Blob><Name>repo/m/1/a&amp;b.py</Name>
  <Properties><Content-Length>5</Content-Length><Etag>0x8DC2</Etag></Properties></Blob></Blobs>
  <NextMarker /></EnumerationResults>)");
}

TEST(AzureStoreTest, ListsEveryPageSignedWithSharedKeyOnTheConnectionStringsEndpoint) {
  Fixture f(ListingPage, {{"AZURE_STORAGE_CONNECTION_STRING", kAzurite}});
  auto objects = f.Open("as://devstoreaccount1/models/repo")->List("");
  ASSERT_TRUE(objects.ok()) << objects.status().ToString();
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ((*objects)[0].key, "m/1/a&b.py");
  EXPECT_EQ((*objects)[1].key, "m/config.pbtxt");
  EXPECT_EQ((*objects)[1].version, "0x8DC1");
  EXPECT_EQ((*objects)[1].checksum.kind, ChecksumKind::kMd5);
  EXPECT_EQ((*objects)[1].checksum.Text(), "5eb63bbbe01eeed093cb22bb8f5acdc3");

  const auto sent = f.transport->sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].url, "http://127.0.0.1:10000/devstoreaccount1/models"
                         "?restype=container&comp=list&prefix=repo%2F");
  EXPECT_NE(sent[1].url.find("&marker=2%21a%26b"), std::string::npos) << sent[1].url;
  for (const HttpRequest& request : sent) {
    EXPECT_EQ(Header(request, "x-ms-version"), "2023-11-03");
    EXPECT_FALSE(Header(request, "x-ms-date").empty());
    // The signature is Shared Key's over what was sent (Authorization itself is not signed).
    auto parts = AzureRequestPartsOf(request);
    ASSERT_TRUE(parts.ok());
    EXPECT_EQ(Header(request, "Authorization"),
              AzureSharedKeyAuthorization("devstoreaccount1", kDevKey, *parts).value());
  }
}

TEST(AzureStoreTest, ASasTokenInTheUrlIsSentInsteadOfASignatureAndKeptOutOfMessages) {
  TempDir dir;
  Fixture f(
      [](const HttpRequest&) {
        return CloudAnswer(
            403, "<?xml version=\"1.0\"?><Error><Code>AuthenticationFailed</Code>"
                 "<Message>Signature did not match.\nRequestId:1\nTime:2</Message></Error>",
            {{"x-ms-error-code", "AuthenticationFailed"}});
      },
      {{"AZURE_STORAGE_KEY", kDevKey}});
  auto store = f.Open("as://acct/models/repo?sv=2022-11-02&sig=abc%3D");
  const Status status = store->Download({"m/x", 3, "0x8DC1", {}}, dir.path() / "out", std::nullopt);
  const HttpRequest get = f.transport->sent().at(0);
  EXPECT_EQ(get.url, "https://acct.blob.core.windows.net/models/repo/m/x?sv=2022-11-02&sig=abc%3D");
  EXPECT_EQ(Header(get, "Authorization"), "");
  EXPECT_EQ(Header(get, "If-Match"), "\"0x8DC1\"");
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(status.message(),
            "as://acct/models/repo: object 'm/x': AuthenticationFailed (HTTP 403): "
            "Signature did not match.");
  EXPECT_EQ(store->Url(), "as://acct/models/repo");
}

TEST(AzureStoreTest, AMissingContainerIsNotFoundWithAzuresCode) {
  Fixture f(
      [](const HttpRequest&) {
        return CloudAnswer(404, "", {{"x-ms-error-code", "ContainerNotFound"}});
      },
      {});
  auto objects = f.Open("as://acct/nothere")->List("");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(objects.status().message(), "as://acct/nothere: ContainerNotFound (HTTP 404)");
  EXPECT_EQ(Header(f.transport->sent().at(0), "Authorization"), "");  // anonymous
}

TEST(AzureStoreTest, RangesAskForTheirBytesAndExpectThatMany) {
  TempDir dir;
  Fixture f([](const HttpRequest&) { return CloudAnswer(206, "abcd"); },
            {{"AZURE_STORAGE_CONNECTION_STRING", kAzurite}});
  ASSERT_TRUE(f.Open("as://devstoreaccount1/models")
                  ->Download({"big.bin", 100, "0x1", {}}, dir.path() / "out", ByteRange{10, 13})
                  .ok());
  const HttpRequest get = f.transport->sent().at(0);
  EXPECT_EQ(get.url, "http://127.0.0.1:10000/devstoreaccount1/models/big.bin");
  EXPECT_EQ(Header(get, "Range"), "bytes=10-13");
  EXPECT_EQ(get.expected_body_bytes, 4u);
}

}  // namespace
}  // namespace inferd
