// What a download is checked against: the checksum of an object's content as
// its store states it (S3's flexible checksums in a GetObject's headers or a
// single-part ETag's MD5, GCS's crc32c or md5Hash, Azure's Content-MD5), and
// the same digest computed over the bytes, fed as they arrive or read back
// from a file. The CRCs cost a fraction of MD5's CPU (crc.h), so a store that
// states one is checked with it.
#ifndef INFERD_CORE_CLOUD_CHECKSUM_H_
#define INFERD_CORE_CLOUD_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

enum class ChecksumKind { kNone, kMd5, kCrc32, kCrc32c, kCrc64Nvme, kSha1, kSha256 };

// "MD5", "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" (S3's names); "none".
std::string_view ChecksumName(ChecksumKind kind);
// The digest's length in bytes (0 for kNone).
size_t ChecksumBytes(ChecksumKind kind);

// A stated checksum: which, and its raw digest (a CRC big-endian, as the
// stores encode it). kNone: the store states none, nothing to check.
struct ContentChecksum {
  ChecksumKind kind = ChecksumKind::kNone;
  std::string digest;

  bool empty() const { return kind == ChecksumKind::kNone; }
  // As users see it in the store's tools: MD5 in hex, the others in base64.
  std::string Text() const;
  bool operator==(const ContentChecksum&) const = default;
};

// `kind` from a store's base64 value; kNone when it does not decode to
// `kind`'s length (so a malformed header is as good as none, never a failure).
ContentChecksum ChecksumFromBase64(ChecksumKind kind, std::string_view base64);

// Computes one digest over bytes fed in order.
class ChecksumHasher {
 public:
  explicit ChecksumHasher(ChecksumKind kind);
  ~ChecksumHasher();
  ChecksumHasher(const ChecksumHasher&) = delete;
  ChecksumHasher& operator=(const ChecksumHasher&) = delete;

  void Update(const void* data, size_t size);
  ContentChecksum Finish();  // once

 private:
  const ChecksumKind kind_;
  uint64_t crc_ = 0;
  struct Digest;  // OpenSSL's context for MD5 / SHA1 / SHA256
  std::unique_ptr<Digest> digest_;
};

// `kind` over the file's content.
StatusOr<ContentChecksum> ChecksumOfFile(ChecksumKind kind, const std::filesystem::path& path);

// "<what>: content does not match its <KIND> (<expected>, received <actual>)":
// the error a failed check gives, whoever checked.
Status ChecksumMismatch(const std::string& what, const ContentChecksum& expected,
                        const ContentChecksum& actual);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CHECKSUM_H_
