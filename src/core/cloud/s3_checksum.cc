#include "core/cloud/s3_checksum.h"

#include <utility>

namespace inferd {

ContentChecksum S3FlexibleChecksum(const HttpResponse& response) {
  if (response.Header("x-amz-checksum-type") == "COMPOSITE") return {};
  // Cheapest first: CRC32C has its own instruction, zlib's CRC32 is close.
  static constexpr std::pair<const char*, ChecksumKind> kHeaders[] = {
      {"x-amz-checksum-crc32c", ChecksumKind::kCrc32c},
      {"x-amz-checksum-crc32", ChecksumKind::kCrc32},
      {"x-amz-checksum-crc64nvme", ChecksumKind::kCrc64Nvme},
      {"x-amz-checksum-sha1", ChecksumKind::kSha1},
      {"x-amz-checksum-sha256", ChecksumKind::kSha256},
  };
  for (const auto& [header, kind] : kHeaders) {
    // A composite value's "-<parts>" suffix is no base64: it decodes to nothing.
    ContentChecksum stated = ChecksumFromBase64(kind, response.Header(header));
    if (!stated.empty()) return stated;
  }
  return {};
}

ContentChecksum S3ExpectedChecksum(const HttpResponse& response, const ObjectInfo& object) {
  ContentChecksum flexible = S3FlexibleChecksum(response);
  if (!flexible.empty()) return flexible;
  if (response.Header("x-amz-server-side-encryption").rfind("aws:kms", 0) == 0 ||
      !response.Header("x-amz-server-side-encryption-customer-algorithm").empty()) {
    return {};
  }
  return object.checksum;
}

}  // namespace inferd
