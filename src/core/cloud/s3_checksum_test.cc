#include "core/cloud/s3_checksum.h"

#include <gtest/gtest.h>

#include "core/cloud/crypto.h"

namespace inferd {
namespace {

HttpResponse Answer(HttpHeaders headers) {
  HttpResponse response;
  response.status = 200;
  response.headers = std::move(headers);
  return response;
}

const ObjectInfo kListed{"m/w", 11, "5eb63bbbe01eeed093cb22bb8f5acdc3",
                         ChecksumFromBase64(ChecksumKind::kMd5, "XrY7u+Ae7tCTyyK7j1rNww==")};

TEST(S3ChecksumTest, EachFlexibleChecksumIsRead) {
  const std::pair<const char*, ChecksumKind> cases[] = {
      {"x-amz-checksum-crc32", ChecksumKind::kCrc32},
      {"x-amz-checksum-crc32c", ChecksumKind::kCrc32c},
      {"x-amz-checksum-crc64nvme", ChecksumKind::kCrc64Nvme},
      {"x-amz-checksum-sha1", ChecksumKind::kSha1},
      {"x-amz-checksum-sha256", ChecksumKind::kSha256}};
  for (const auto& [header, kind] : cases) {
    const std::string value = Base64Encode(std::string(ChecksumBytes(kind), '\0'));
    const ContentChecksum read = S3ExpectedChecksum(Answer({{header, value}}), kListed);
    EXPECT_EQ(read.kind, kind) << header;
    EXPECT_EQ(read.digest, std::string(ChecksumBytes(kind), '\0')) << header;
  }
}

TEST(S3ChecksumTest, TheCheapestOfSeveralWins) {
  const auto read = S3FlexibleChecksum(Answer(
      {{"x-amz-checksum-sha256", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="},
       {"x-amz-checksum-crc64nvme", "jSnVw/bqjr4="},
       {"x-amz-checksum-crc32c", "yZRlqg=="}}));
  EXPECT_EQ(read.kind, ChecksumKind::kCrc32c);
}

TEST(S3ChecksumTest, CompositeOrMalformedFallsBackToTheListedMd5) {
  EXPECT_EQ(S3ExpectedChecksum(Answer({{"x-amz-checksum-crc32", "DUoRhQ==-12"}}), kListed),
            kListed.checksum);
  EXPECT_EQ(S3ExpectedChecksum(Answer({{"x-amz-checksum-crc32", "DUoRhQ=="},
                                       {"x-amz-checksum-type", "COMPOSITE"}}),
                               kListed),
            kListed.checksum);
  EXPECT_EQ(S3ExpectedChecksum(Answer({{"x-amz-checksum-crc64nvme", "DUoRhQ=="}}), kListed),
            kListed.checksum);  // a CRC32's length is no CRC64NVME
  EXPECT_EQ(S3ExpectedChecksum(Answer({}), kListed), kListed.checksum);
  EXPECT_EQ(S3ExpectedChecksum(Answer({{"x-amz-checksum-crc32", "DUoRhQ=="},
                                       {"x-amz-checksum-type", "FULL_OBJECT"}}),
                               kListed)
                .kind,
            ChecksumKind::kCrc32);
}

TEST(S3ChecksumTest, EncryptedObjectsHaveNoMd5ButKeepTheirFlexibleChecksum) {
  for (const auto& header : {std::pair<std::string, std::string>{"x-amz-server-side-encryption", "aws:kms"},
                             {"x-amz-server-side-encryption-customer-algorithm", "AES256"}}) {
    EXPECT_TRUE(S3ExpectedChecksum(Answer({header}), kListed).empty());
    EXPECT_EQ(S3ExpectedChecksum(Answer({header, {"x-amz-checksum-crc32", "DUoRhQ=="}}), kListed)
                  .kind,
              ChecksumKind::kCrc32);
  }
  // S3-managed keys (AES256) keep the ETag an MD5.
  EXPECT_EQ(S3ExpectedChecksum(Answer({{"x-amz-server-side-encryption", "AES256"}}), kListed),
            kListed.checksum);
}

}  // namespace
}  // namespace inferd
