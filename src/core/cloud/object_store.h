// An object store seen as a model repository needs it: a flat namespace of
// objects under one root (bucket + prefix), listed recursively with each
// object's size and version tag, and objects (or byte ranges of them) copied
// to local files. S3, GCS and Azure Blob each implement it (s3_store.h,
// gcs_store.h, azure_store.h); store_registry.h opens the one a URL names.
// The model cache (above it) decides what to download; a store keeps no
// state between calls except its connections. Implementations are
// thread-safe: the cache downloads many objects through one store at once.
#ifndef INFERD_CORE_CLOUD_OBJECT_STORE_H_
#define INFERD_CORE_CLOUD_OBJECT_STORE_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/cloud/checksum.h"
#include "inferd/base/status.h"

namespace inferd {

struct ObjectInfo {
  std::string key;    // relative to the store's root, '/'-separated, no leading '/'
  uint64_t size = 0;  // bytes
  // What changes when the object's content changes: S3's ETag, GCS's
  // generation, Azure's ETag. Opaque; compared for equality only.
  std::string version;
  // The content's checksum as the listing states it: MD5 from S3 single-part
  // ETags and Azure's Content-MD5, GCS's crc32c (its md5Hash when it has
  // none); empty otherwise. An S3 download may find a cheaper one in the
  // answer's headers (a flexible checksum) and check that instead.
  ContentChecksum checksum;
};

// Bytes [first, last] of an object, both inclusive (as HTTP's Range header).
struct ByteRange {
  uint64_t first = 0;
  uint64_t last = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // The store's root as the user wrote it ("s3://bucket/path"), for messages.
  virtual std::string Url() const = 0;

  // Every object whose key starts with `prefix` ("" = the whole root; a
  // folder is "name/"), recursively, sorted by key. "Folder" marker objects
  // (keys ending in '/', size 0) are left out. A missing bucket or refused
  // credentials are errors (cloud_error.h); an empty prefix is an empty list.
  virtual StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix) const = 0;

  // Copies `object` into `dest`: the whole object (`dest` is created or
  // truncated), or only `range`, written at the same offset of `dest` (which
  // is opened without truncating, so several ranges may fill one file
  // concurrently). Fails if the object changed since `object` was listed
  // (its version differs), if fewer bytes arrive than asked for, or if a
  // whole object's bytes do not have the checksum the store states for it
  // (hashed as they arrive; a range is left to the caller to check once
  // whole, against WholeChecksum); what was written to `dest` is then garbage
  // for the caller to discard.
  virtual Status Download(const ObjectInfo& object, const std::filesystem::path& dest,
                          std::optional<ByteRange> range) const = 0;

  // The cheapest checksum the store states for the whole object, for an
  // object fetched in ranges (whose answers carry none): the listing's unless
  // the store can tell more (S3: a HEAD for its flexible checksum).
  virtual StatusOr<ContentChecksum> WholeChecksum(const ObjectInfo& object) const {
    return object.checksum;
  }
};

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_OBJECT_STORE_H_
