#include "core/cloud/azure_shared_key.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

// Azurite's documented development key.
constexpr char kDevKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

AzureRequestParts ListRequest() {
  AzureRequestParts request;
  request.method = "GET";
  request.path = "/devstoreaccount1/models";  // path-style, as Azurite is addressed
  request.query = {{"restype", "container"}, {"comp", "list"}, {"prefix", "repo/"},
                   {"marker", ""}};
  request.headers = {{"x-ms-date", "Sun, 29 Nov 2026 07:00:00 GMT"},
                     {"x-ms-version", "2023-11-03"},
                     {"range", "bytes=0-99"},
                     {"host", "127.0.0.1:10000"}};
  return request;
}

// Microsoft's examples of canonicalized resources ("Shared Key format for
// 2009-09-19 and later"): parameters sorted, a name's values sorted and joined.
TEST(AzureSharedKeyTest, CanonicalizedResourceMatchesMicrosoftsExamples) {
  AzureRequestParts metadata{
      "GET", "/mycontainer", {{"restype", "container"}, {"comp", "metadata"}}, {}};
  EXPECT_EQ(AzureCanonicalizedResource("myaccount", metadata),
            "/myaccount/mycontainer\ncomp:metadata\nrestype:container");
  AzureRequestParts list{"GET",
                         "/mycontainer",
                         {{"restype", "container"},
                          {"comp", "list"},
                          {"include", "snapshots"},
                          {"include", "metadata"},
                          {"include", "uncommittedblobs"}},
                         {}};
  EXPECT_EQ(AzureCanonicalizedResource("myaccount", list),
            "/myaccount/mycontainer\ncomp:list\ninclude:metadata,snapshots,uncommittedblobs\n"
            "restype:container");
}

TEST(AzureSharedKeyTest, ParameterNamesAreLowerCasedAndEmulatorPathsNameTheAccountTwice) {
  AzureRequestParts request{"GET", "/devstoreaccount1/c/b", {{"COMP", "list"}}, {}};
  EXPECT_EQ(AzureCanonicalizedResource("devstoreaccount1", request),
            "/devstoreaccount1/devstoreaccount1/c/b\ncomp:list");
}

TEST(AzureSharedKeyTest, CanonicalizedHeadersAreTheSortedMsHeadersWithFoldedValues) {
  EXPECT_EQ(AzureCanonicalizedHeaders({{"x-ms-version", "2023-11-03"},
                                       {"x-ms-date", "  Sun,  29 Nov  "},
                                       {"content-type", "text/plain"},
                                       {"x-ms-meta-a", "b"}}),
            "x-ms-date:Sun, 29 Nov\nx-ms-meta-a:b\nx-ms-version:2023-11-03\n");
}

TEST(AzureSharedKeyTest, StringToSignHasElevenStandardHeaderLinesInOrder) {
  EXPECT_EQ(AzureStringToSign("devstoreaccount1", ListRequest()),
            "GET\n\n\n\n\n\n\n\n\n\n\nbytes=0-99\n"
            "x-ms-date:Sun, 29 Nov 2026 07:00:00 GMT\nx-ms-version:2023-11-03\n"
            "/devstoreaccount1/devstoreaccount1/models\ncomp:list\nmarker:\nprefix:repo/\n"
            "restype:container");
}

TEST(AzureSharedKeyTest, ZeroContentLengthIsSignedAsEmpty) {
  AzureRequestParts request{"PUT", "/c", {}, {{"content-length", "0"}}};
  AzureRequestParts sized{"PUT", "/c", {}, {{"content-length", "12"}}};
  EXPECT_EQ(AzureStringToSign("a", request), "PUT\n\n\n\n\n\n\n\n\n\n\n\n/a/c");
  EXPECT_EQ(AzureStringToSign("a", sized), "PUT\n\n\n12\n\n\n\n\n\n\n\n\n/a/c");
}

// The signature of the string above under Azurite's key, computed apart from
// this code (Python: base64(hmac.new(b64decode(key), sts, sha256).digest())).
TEST(AzureSharedKeyTest, AuthorizationIsTheKnownHmacOfTheStringToSign) {
  auto header = AzureSharedKeyAuthorization("devstoreaccount1", kDevKey, ListRequest());
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(*header, "SharedKey devstoreaccount1:NN2gMFZCQUOddz8B/Yl26AHkZahOjawR48b6ongBSdo=");
}

TEST(AzureSharedKeyTest, AKeyThatIsNotBase64IsRefusedNamingTheAccount) {
  auto header = AzureSharedKeyAuthorization("acct", "not base64!", ListRequest());
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.status().code(), Status::Code::kInvalidArg);
  EXPECT_NE(header.status().message().find("'acct'"), std::string::npos);
}

}  // namespace
}  // namespace inferd
