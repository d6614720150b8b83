#include "core/cloud/sigv4.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

// AWS's SigV4 test suite (aws-sig-v4-test-suite): credentials and date.
const SigV4Scope kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1",
                        "service"};
constexpr char kSuiteDate[] = "20150830T123600Z";

// The S3 documentation's examples ("Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk").
const SigV4Scope kS3Doc{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                        "us-east-1", "s3"};
constexpr char kS3DocDate[] = "20130524T000000Z";

std::string Signature(const std::string& authorization) {
  return authorization.substr(authorization.find("Signature=") + 10);
}

TEST(SigV4Test, SuiteGetVanilla) {
  const SigV4Request request{"GET", "/", {},
                             {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}},
                             kEmptyPayloadSha256};
  EXPECT_EQ(CanonicalRequest(request),
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n" + std::string(kEmptyPayloadSha256));
  EXPECT_EQ(SigV4Authorization(request, kSuite, kSuiteDate),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Test, SuiteGetVanillaQueryOrderKeyCase) {
  const SigV4Request request{"GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}},
                             {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}},
                             kEmptyPayloadSha256};
  EXPECT_EQ(Signature(SigV4Authorization(request, kSuite, kSuiteDate)),
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4Test, SuitePostVanilla) {
  const SigV4Request request{"POST", "/", {},
                             {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}},
                             kEmptyPayloadSha256};
  EXPECT_EQ(Signature(SigV4Authorization(request, kSuite, kSuiteDate)),
            "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(SigV4Test, S3DocGetObjectWithRange) {
  const SigV4Request request{"GET", "/test.txt", {},
                             {{"Host", "examplebucket.s3.amazonaws.com"},
                              {"Range", "bytes=0-9"},
                              {"x-amz-content-sha256", kEmptyPayloadSha256},
                              {"x-amz-date", kS3DocDate}},
                             kEmptyPayloadSha256};
  EXPECT_EQ(SigV4Authorization(request, kS3Doc, kS3DocDate),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, S3DocListObjects) {
  const SigV4Request request{"GET", "/", {{"max-keys", "2"}, {"prefix", "J"}},
                             {{"Host", "examplebucket.s3.amazonaws.com"},
                              {"x-amz-content-sha256", kEmptyPayloadSha256},
                              {"x-amz-date", kS3DocDate}},
                             kEmptyPayloadSha256};
  EXPECT_EQ(Signature(SigV4Authorization(request, kS3Doc, kS3DocDate)),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4Test, QueryValuesAreEncodedAndSorted) {
  EXPECT_EQ(CanonicalQuery({{"prefix", "a b/c"}, {"list-type", "2"}, {"continuation-token", "x=="}}),
            "continuation-token=x%3D%3D&list-type=2&prefix=a%20b%2Fc");
}

TEST(SigV4Test, HeaderValuesAreTrimmed) {
  const SigV4Request request{"GET", "/", {}, {{"X-Odd", "  a   b  "}}, "p"};
  EXPECT_EQ(CanonicalRequest(request), "GET\n/\n\nx-odd:a b\n\nx-odd\np");
}

TEST(SigV4Test, AmzDateIsUtc) { EXPECT_EQ(AmzDate(1440938160), "20150830T123600Z"); }

}  // namespace
}  // namespace inferd
