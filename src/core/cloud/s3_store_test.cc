#include "core/cloud/s3_store.h"

#include <gtest/gtest.h>

#include "core/test_util/fake_http.h"

namespace inferd {
namespace {

std::string Header(const HttpRequest& request, const std::string& name) {
  for (const auto& [key, value] : request.headers) {
    if (key == name) return value;
  }
  return "<none>";
}

std::string Contents(const std::string& key, int size, const std::string& etag) {
  return "<Contents><Key>" + key + "</Key><Size>" + std::to_string(size) +
         "</Size><ETag>&quot;" + etag + "&quot;</ETag></Contents>";
}

const S3Credentials kKeys{"AKID", "SECRET", "", "eu-west-1", "", ""};

struct Fixture {
  explicit Fixture(ScriptedTransport::Responder responder, const std::string& url,
                   S3Credentials credentials = kKeys)
      : transport(std::make_shared<ScriptedTransport>(std::move(responder))),
        http(transport, RetryPolicy{2, std::chrono::milliseconds(1), std::chrono::milliseconds(1)},
             &sleeper),
        store(MakeS3Store(ParseCloudUrl(url).value(), std::move(credentials), &http,
                          [] { return std::time_t{1440938160}; })) {}
  std::shared_ptr<ScriptedTransport> transport;
  RecordingSleeper sleeper;
  HttpClient http;
  std::unique_ptr<ObjectStore> store;
};

TEST(S3StoreTest, ListsEveryPageOfAPathStyleEndpoint) {
  Fixture f(
      [](const HttpRequest& request) {
        if (request.url.find("continuation-token") == std::string::npos) {
          return MakeHttpResponse(
              200, "<ListBucketResult>" + Contents("repo/m/", 0, "d41d8cd98f00b204e9800998ecf8427e") +
                       Contents("repo/m/config.pbtxt", 12, "0123456789abcdef0123456789abcdef") +
                       "<IsTruncated>true</IsTruncated>"
                       "<NextContinuationToken>tok/1=</NextContinuationToken></ListBucketResult>");
        }
        return MakeHttpResponse(200, "<ListBucketResult>" + Contents("repo/m/1/model.onnx", 5000, "abc-2") +
                                         "<IsTruncated>false</IsTruncated></ListBucketResult>");
      },
      "s3://127.0.0.1:9000/models/repo");
  auto listed = f.store->List("m/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "m/1/model.onnx");
  EXPECT_EQ((*listed)[0].size, 5000u);
  EXPECT_EQ((*listed)[0].version, "abc-2");
  EXPECT_TRUE((*listed)[0].checksum.empty());  // a multipart ETag is no MD5
  EXPECT_EQ((*listed)[1].key, "m/config.pbtxt");
  EXPECT_EQ((*listed)[1].checksum.kind, ChecksumKind::kMd5);
  EXPECT_EQ((*listed)[1].checksum.Text(), "0123456789abcdef0123456789abcdef");
  const auto sent = f.transport->sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].url, "http://127.0.0.1:9000/models?list-type=2&prefix=repo%2Fm%2F");
  EXPECT_EQ(sent[1].url,
            "http://127.0.0.1:9000/models?continuation-token=tok%2F1%3D&list-type=2&prefix=repo%2Fm%2F");
  EXPECT_EQ(Header(sent[0], "Host"), "127.0.0.1:9000");
  EXPECT_EQ(Header(sent[0], "x-amz-date"), "20150830T123600Z");
  EXPECT_EQ(Header(sent[0], "Authorization").rfind(
                "AWS4-HMAC-SHA256 Credential=AKID/20150830/eu-west-1/s3/aws4_request, "
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=", 0),
            0u);
}

TEST(S3StoreTest, AwsBucketsAreVirtualHostedUnlessTheNameIsNoDnsLabel) {
  auto empty = [](const HttpRequest&) { return MakeHttpResponse(200, "<ListBucketResult/>"); };
  Fixture hosted(empty, "s3://mybucket/repo");
  ASSERT_TRUE(hosted.store->List("").ok());
  EXPECT_EQ(hosted.transport->sent()[0].url,
            "https://mybucket.s3.eu-west-1.amazonaws.com/?list-type=2&prefix=repo%2F");
  Fixture dotted(empty, "s3://my.bucket");
  ASSERT_TRUE(dotted.store->List("").ok());
  EXPECT_EQ(dotted.transport->sent()[0].url,
            "https://s3.eu-west-1.amazonaws.com/my.bucket?list-type=2&prefix=");
  S3Credentials with_endpoint = kKeys;
  with_endpoint.endpoint = "https://storage.example.com:8443/base/";
  Fixture endpoint(empty, "s3://bucket/r", with_endpoint);
  ASSERT_TRUE(endpoint.store->List("").ok());
  EXPECT_EQ(endpoint.transport->sent()[0].url,
            "https://storage.example.com:8443/base/bucket?list-type=2&prefix=r%2F");
}

TEST(S3StoreTest, DownloadsARangeIfTheObjectIsUnchanged) {
  Fixture f([](const HttpRequest&) {
    HttpResponse response = MakeHttpResponse(206);
    response.body_bytes = 100;
    return response;
  }, "s3://127.0.0.1:9000/models/repo");
  const ObjectInfo object{"m/1/model a.onnx", 1000, "etag1", {}};
  ASSERT_TRUE(f.store->Download(object, "/tmp/x", ByteRange{100, 199}).ok());
  const HttpRequest sent = f.transport->sent().at(0);
  EXPECT_EQ(sent.url, "http://127.0.0.1:9000/models/repo/m/1/model%20a.onnx");
  EXPECT_EQ(Header(sent, "Range"), "bytes=100-199");
  EXPECT_EQ(Header(sent, "If-Match"), "\"etag1\"");
  ASSERT_TRUE(sent.body_file.has_value());
  EXPECT_EQ(sent.body_file->offset, 100u);
  EXPECT_FALSE(sent.body_file->truncate);
  EXPECT_EQ(sent.expected_body_bytes, 100u);
}

// The fake transport answers with `headers` and, as curl_transport does, hashes
// with the kind the request's chooser picks from them; the bytes "received"
// always have the digest of "hello worlD" (so any stated checksum mismatches).
struct HashingAnswer {
  HttpHeaders headers;
  HttpResponse operator()(const HttpRequest& request) const {
    HttpResponse response = MakeHttpResponse(200);
    response.body_bytes = 11;
    response.headers = headers;
    if (request.body_file->checksum) {
      ChecksumHasher hasher(request.body_file->checksum(response));
      hasher.Update("hello worlD", 11);
      response.body_checksum = hasher.Finish();
    }
    return response;
  }
};

TEST(S3StoreTest, AWholeObjectIsCheckedAgainstTheListedMd5UnlessKmsEncrypted) {
  HashingAnswer answer;
  Fixture f([&](const HttpRequest& request) { return answer(request); },
            "s3://127.0.0.1:9000/models/repo");
  const std::string md5 = "5eb63bbbe01eeed093cb22bb8f5acdc3";  // of "hello world"
  const ObjectInfo object{"m/w", 11, md5, ChecksumFromBase64(ChecksumKind::kMd5, "XrY7u+Ae7tCTyyK7j1rNww==")};
  const Status status = f.store->Download(object, "/tmp/x", std::nullopt);
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(status.message().rfind("s3://127.0.0.1:9000/models/repo: object 'm/w': content does "
                                   "not match its MD5 (" + md5 + ", received ", 0), 0u);
  answer.headers = {{"x-amz-server-side-encryption", "aws:kms"}};  // its ETag is no MD5
  EXPECT_TRUE(f.store->Download(object, "/tmp/x", std::nullopt).ok());
  // A range is not hashed (its answer states no checksum): the fetcher checks
  // the whole file once every range is in, against WholeChecksum.
  answer.headers.clear();
  EXPECT_TRUE(f.store->Download(object, "/tmp/x", ByteRange{0, 10}).ok());
  EXPECT_FALSE(f.transport->sent().at(2).body_file->checksum);
  EXPECT_EQ(Header(f.transport->sent().at(2), "x-amz-checksum-mode"), "<none>");
}

TEST(S3StoreTest, AFlexibleChecksumIsAskedForSignedAndPreferredToTheMd5) {
  HashingAnswer answer{{{"x-amz-checksum-crc32", "DUoRhQ=="}, {"x-amz-checksum-type", "FULL_OBJECT"}}};
  Fixture f([&](const HttpRequest& request) { return answer(request); },
            "s3://127.0.0.1:9000/models/repo");
  const ObjectInfo object{"m/w", 11, "v", ChecksumFromBase64(ChecksumKind::kMd5, "XrY7u+Ae7tCTyyK7j1rNww==")};
  Status status = f.store->Download(object, "/tmp/x", std::nullopt);
  const HttpRequest sent = f.transport->sent().at(0);
  EXPECT_EQ(Header(sent, "x-amz-checksum-mode"), "ENABLED");
  EXPECT_NE(Header(sent, "Authorization").find("x-amz-checksum-mode"), std::string::npos);
  EXPECT_EQ(status.message(), "s3://127.0.0.1:9000/models/repo: object 'm/w': content does not "
                              "match its CRC32 (DUoRhQ==, received NiQxTQ==)");
  // A composite (multipart) checksum cannot be checked against the body: the MD5 is.
  answer.headers = {{"x-amz-checksum-crc32", "DUoRhQ==-3"}, {"x-amz-checksum-type", "COMPOSITE"}};
  status = f.store->Download(object, "/tmp/x", std::nullopt);
  EXPECT_NE(status.message().find("does not match its MD5"), std::string::npos);
  // KMS-encrypted, its flexible checksum still checks it.
  answer.headers = {{"x-amz-checksum-crc64nvme", "jSnVw/bqjr4="},
                    {"x-amz-server-side-encryption", "aws:kms"}};
  status = f.store->Download(object, "/tmp/x", std::nullopt);
  EXPECT_NE(status.message().find("does not match its CRC64NVME (jSnVw/bqjr4=, received "),
            std::string::npos);
}

TEST(S3StoreTest, ErrorsNameTheStoreTheObjectAndTheCloudsCode) {
  Fixture f([](const HttpRequest&) {
    return MakeHttpResponse(403, "<Error><Code>SignatureDoesNotMatch</Code>"
                                 "<Message>The request signature we calculated does not match"
                                 "</Message></Error>");
  }, "s3://127.0.0.1:9000/models/repo");
  const Status status = f.store->Download(ObjectInfo{"m/config.pbtxt", 5, "", {}}, "/tmp/x", {});
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(status.message(),
            "s3://127.0.0.1:9000/models/repo: object 'm/config.pbtxt': SignatureDoesNotMatch "
            "(HTTP 403): The request signature we calculated does not match");
  Fixture missing([](const HttpRequest&) {
    return MakeHttpResponse(404, "<Error><Code>NoSuchBucket</Code><Message>The specified bucket "
                                 "does not exist</Message></Error>");
  }, "s3://127.0.0.1:9000/nope");
  auto listed = missing.store->List("");
  EXPECT_EQ(listed.status().code(), Status::Code::kNotFound);
  EXPECT_NE(listed.status().message().find("s3://127.0.0.1:9000/nope: NoSuchBucket (HTTP 404)"),
            std::string::npos) << listed.status().message();
}

TEST(S3StoreTest, SessionTokensAreSentAndAnonymousRequestsAreUnsigned) {
  auto empty = [](const HttpRequest&) { return MakeHttpResponse(200, "<ListBucketResult/>"); };
  S3Credentials temporary = kKeys;
  temporary.session_token = "TOKEN";
  Fixture with_token(empty, "s3://bucket", temporary);
  ASSERT_TRUE(with_token.store->List("").ok());
  const HttpRequest signed_request = with_token.transport->sent().at(0);
  EXPECT_EQ(Header(signed_request, "x-amz-security-token"), "TOKEN");
  EXPECT_NE(Header(signed_request, "Authorization").find("x-amz-security-token"), std::string::npos);
  Fixture anonymous(empty, "s3://bucket", S3Credentials{});
  ASSERT_TRUE(anonymous.store->List("").ok());
  EXPECT_EQ(Header(anonymous.transport->sent().at(0), "Authorization"), "<none>");
  EXPECT_EQ(anonymous.transport->sent().at(0).url,
            "https://bucket.s3.us-east-1.amazonaws.com/?list-type=2&prefix=");
}

}  // namespace
}  // namespace inferd
