#include "core/cloud/checksum.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/cloud/crc.h"
#include "core/cloud/crypto.h"
#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

// 256 bytes 0..255, 40 times, then "tail": crosses the 8-byte paths at odd ends.
std::string Pattern() {
  std::string out;
  for (int round = 0; round < 40; ++round) {
    for (int b = 0; b < 256; ++b) out += static_cast<char>(b);
  }
  return out + "tail";
}

std::string Base64Of(ChecksumKind kind, const std::string& data) {
  ChecksumHasher hasher(kind);
  hasher.Update(data.data(), data.size());
  return hasher.Finish().Text();
}

TEST(CrcTest, PublishedCheckValues) {
  const std::string check = "123456789";
  EXPECT_EQ(Crc32(0, check.data(), check.size()), 0xcbf43926u);
  EXPECT_EQ(Crc32c(0, check.data(), check.size()), 0xe3069283u);
  EXPECT_EQ(Crc32cPortable(0, check.data(), check.size()), 0xe3069283u);
  EXPECT_EQ(Crc64Nvme(0, check.data(), check.size()), 0xae8b14860a799888ull);
  EXPECT_EQ(Crc64NvmePortable(0, check.data(), check.size()), 0xae8b14860a799888ull);
  EXPECT_EQ(Crc32c(0, "", 0), 0u);
  EXPECT_EQ(Crc64Nvme(0, "", 0), 0u);
}

TEST(CrcTest, ChunksContinueTheWhole) {
  std::mt19937 random(7);
  std::string data(100003, '\0');
  for (char& c : data) c = static_cast<char>(random());
  const uint32_t crc32c = Crc32c(0, data.data(), data.size());
  const uint64_t crc64 = Crc64Nvme(0, data.data(), data.size());
  EXPECT_EQ(Crc32cPortable(0, data.data(), data.size()), crc32c);
  EXPECT_EQ(Crc64NvmePortable(0, data.data(), data.size()), crc64);
  // Every length around the folding's 16-byte blocks and 32-byte minimum.
  for (size_t size = 0; size < 100; ++size) {
    EXPECT_EQ(Crc64Nvme(0, data.data() + 3, size), Crc64NvmePortable(0, data.data() + 3, size))
        << size;
    EXPECT_EQ(Crc32c(0, data.data() + 5, size), Crc32cPortable(0, data.data() + 5, size)) << size;
  }
  for (size_t cut : {size_t{1}, size_t{7}, size_t{8}, size_t{4097}, data.size() - 3}) {
    EXPECT_EQ(Crc32c(Crc32c(0, data.data(), cut), data.data() + cut, data.size() - cut), crc32c);
    EXPECT_EQ(Crc32cPortable(Crc32cPortable(0, data.data(), cut), data.data() + cut,
                             data.size() - cut),
              crc32c);
    EXPECT_EQ(Crc64Nvme(Crc64Nvme(0, data.data(), cut), data.data() + cut, data.size() - cut),
              crc64);
    EXPECT_EQ(Crc64NvmePortable(Crc64NvmePortable(0, data.data(), cut), data.data() + cut,
                                data.size() - cut),
              crc64);
  }
}

// The values boto3 (with awscrt, as botocore[crt]) sends and S3 states, base64
// of the big-endian CRC, for the same bytes.
TEST(ChecksumTest, MatchesWhatAwsSdksCompute) {
  EXPECT_EQ(Base64Of(ChecksumKind::kCrc32, "hello world"), "DUoRhQ==");
  EXPECT_EQ(Base64Of(ChecksumKind::kCrc32c, "hello world"), "yZRlqg==");
  EXPECT_EQ(Base64Of(ChecksumKind::kCrc64Nvme, "hello world"), "jSnVw/bqjr4=");
  EXPECT_EQ(Base64Of(ChecksumKind::kSha1, "hello world"), "Kq5sNclPz7QV2+lfQIuc6R7oRu0=");
  EXPECT_EQ(Base64Of(ChecksumKind::kSha256, "hello world"),
            "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=");
  const std::string pattern = Pattern();
  EXPECT_EQ(Base64Of(ChecksumKind::kCrc32, pattern), "EukXkQ==");
  EXPECT_EQ(Base64Of(ChecksumKind::kCrc32c, pattern), "NtWQrw==");
  EXPECT_EQ(Base64Of(ChecksumKind::kCrc64Nvme, pattern), "SHQV/aIYpt0=");
  EXPECT_EQ(Base64Of(ChecksumKind::kMd5, "hello world"), "5eb63bbbe01eeed093cb22bb8f5acdc3");
}

TEST(ChecksumTest, FromBase64NeedsTheKindsLength) {
  const ContentChecksum crc = ChecksumFromBase64(ChecksumKind::kCrc32, "DUoRhQ==");
  EXPECT_EQ(crc.kind, ChecksumKind::kCrc32);
  EXPECT_EQ(crc.digest, std::string("\x0d\x4a\x11\x85", 4));
  EXPECT_TRUE(ChecksumFromBase64(ChecksumKind::kCrc64Nvme, "DUoRhQ==").empty());
  EXPECT_TRUE(ChecksumFromBase64(ChecksumKind::kCrc32, "").empty());
  EXPECT_TRUE(ChecksumFromBase64(ChecksumKind::kCrc32, "DUoRhQ==-3").empty());
  EXPECT_TRUE(ChecksumFromBase64(ChecksumKind::kMd5, "XrY7u+Ae7tCTyyK7j1rNww==").digest ==
              Base64Decode("XrY7u+Ae7tCTyyK7j1rNww==").value());
}

TEST(ChecksumTest, OfAFile) {
  TempDir dir;
  dir.WriteFile("f", "hello\n");
  auto md5 = ChecksumOfFile(ChecksumKind::kMd5, dir.path() / "f");
  ASSERT_TRUE(md5.ok());
  EXPECT_EQ(md5->Text(), "b1946ac92492d2347c6235b4d2611184");
  dir.WriteFile("p", Pattern());
  EXPECT_EQ(ChecksumOfFile(ChecksumKind::kCrc64Nvme, dir.path() / "p")->Text(), "SHQV/aIYpt0=");
  EXPECT_FALSE(ChecksumOfFile(ChecksumKind::kCrc32, dir.path() / "missing").ok());
}

TEST(ChecksumTest, MismatchNamesTheAlgorithmAndBothValues) {
  const ContentChecksum expected = ChecksumFromBase64(ChecksumKind::kCrc32c, "yZRlqg==");
  const ContentChecksum received = ChecksumFromBase64(ChecksumKind::kCrc32c, "NtWQrw==");
  const Status status = ChecksumMismatch("s3://b/p: object 'm/1/w'", expected, received);
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(status.message(),
            "s3://b/p: object 'm/1/w': content does not match its CRC32C (yZRlqg==, received "
            "NtWQrw==)");
  EXPECT_EQ(ChecksumMismatch("x", expected, {}).message(),
            "x: content does not match its CRC32C (yZRlqg==, received none)");
}

}  // namespace
}  // namespace inferd
