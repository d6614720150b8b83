#include "core/cloud/checksum.h"

#include <openssl/evp.h>

#include <fstream>
#include <vector>

#include "core/cloud/crc.h"
#include "core/cloud/crypto.h"

namespace inferd {

struct ChecksumHasher::Digest {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

namespace {

const EVP_MD* OpenSslDigest(ChecksumKind kind) {
  switch (kind) {
    case ChecksumKind::kMd5: return EVP_md5();
    case ChecksumKind::kSha1: return EVP_sha1();
    case ChecksumKind::kSha256: return EVP_sha256();
    default: return nullptr;
  }
}

std::string BigEndian(uint64_t value, size_t bytes) {
  std::string out(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) {
    out[bytes - 1 - i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return out;
}

}  // namespace

std::string_view ChecksumName(ChecksumKind kind) {
  switch (kind) {
    case ChecksumKind::kMd5: return "MD5";
    case ChecksumKind::kCrc32: return "CRC32";
    case ChecksumKind::kCrc32c: return "CRC32C";
    case ChecksumKind::kCrc64Nvme: return "CRC64NVME";
    case ChecksumKind::kSha1: return "SHA1";
    case ChecksumKind::kSha256: return "SHA256";
    case ChecksumKind::kNone: break;
  }
  return "none";
}

size_t ChecksumBytes(ChecksumKind kind) {
  switch (kind) {
    case ChecksumKind::kMd5: return 16;
    case ChecksumKind::kCrc32:
    case ChecksumKind::kCrc32c: return 4;
    case ChecksumKind::kCrc64Nvme: return 8;
    case ChecksumKind::kSha1: return 20;
    case ChecksumKind::kSha256: return 32;
    case ChecksumKind::kNone: break;
  }
  return 0;
}

std::string ContentChecksum::Text() const {
  if (kind == ChecksumKind::kMd5) return HexEncode(digest);
  return digest.empty() ? "none" : Base64Encode(digest);
}

ContentChecksum ChecksumFromBase64(ChecksumKind kind, std::string_view base64) {
  auto digest = Base64Decode(base64);
  if (base64.empty() || !digest.ok() || digest->size() != ChecksumBytes(kind)) return {};
  return {kind, std::move(digest).value()};
}

ChecksumHasher::ChecksumHasher(ChecksumKind kind) : kind_(kind) {
  if (const EVP_MD* md = OpenSslDigest(kind)) {
    digest_ = std::make_unique<Digest>();
    EVP_DigestInit_ex(digest_->ctx.get(), md, nullptr);
  }
}

ChecksumHasher::~ChecksumHasher() = default;

void ChecksumHasher::Update(const void* data, size_t size) {
  switch (kind_) {
    case ChecksumKind::kCrc32: crc_ = Crc32(static_cast<uint32_t>(crc_), data, size); break;
    case ChecksumKind::kCrc32c: crc_ = Crc32c(static_cast<uint32_t>(crc_), data, size); break;
    case ChecksumKind::kCrc64Nvme: crc_ = Crc64Nvme(crc_, data, size); break;
    default:
      if (digest_) EVP_DigestUpdate(digest_->ctx.get(), data, size);
  }
}

ContentChecksum ChecksumHasher::Finish() {
  if (kind_ == ChecksumKind::kNone) return {};
  if (!digest_) return {kind_, BigEndian(crc_, ChecksumBytes(kind_))};
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(digest_->ctx.get(), out, &length);
  return {kind_, std::string(reinterpret_cast<char*>(out), length)};
}

StatusOr<ContentChecksum> ChecksumOfFile(ChecksumKind kind, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read '" + path.string() + "'");
  ChecksumHasher hasher(kind);
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hasher.Update(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  return hasher.Finish();
}

Status ChecksumMismatch(const std::string& what, const ContentChecksum& expected,
                        const ContentChecksum& actual) {
  return Status::Unavailable(what + ": content does not match its " +
                             std::string(ChecksumName(expected.kind)) + " (" + expected.Text() +
                             ", received " + actual.Text() + ")");
}

}  // namespace inferd
