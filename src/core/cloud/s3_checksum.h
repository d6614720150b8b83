// Which checksum an S3 answer about an object (a GetObject or HeadObject
// sent with x-amz-checksum-mode: ENABLED) lets inferd check the object's
// bytes against. S3 keeps one "flexible" checksum per object when the
// uploader asked for one (CRC32, CRC32C, CRC64NVME, SHA1, SHA256: current AWS
// SDKs and CLIs send CRC32 or CRC64NVME by default) and states it in
// x-amz-checksum-<algorithm>; that one is preferred, CRCs costing a fraction
// of MD5's CPU. A multipart upload's COMPOSITE checksum ("<base64>-<parts>",
// x-amz-checksum-type: COMPOSITE) is a checksum of its parts' checksums and
// says nothing checkable about the whole body, so it counts as none. Without
// a flexible checksum it is the listing's MD5 (a single-part ETag), unless
// the object is encrypted with KMS or a customer's key (whose ETag is no MD5).
#ifndef INFERD_CORE_CLOUD_S3_CHECKSUM_H_
#define INFERD_CORE_CLOUD_S3_CHECKSUM_H_

#include "core/cloud/checksum.h"
#include "core/cloud/http_client.h"
#include "core/cloud/object_store.h"

namespace inferd {

// The full-object flexible checksum `response` states (the cheapest, should
// it state several); empty when none, composite, or malformed.
ContentChecksum S3FlexibleChecksum(const HttpResponse& response);

// What `object`'s bytes in `response` are checked against (empty: nothing).
ContentChecksum S3ExpectedChecksum(const HttpResponse& response, const ObjectInfo& object);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_S3_CHECKSUM_H_
