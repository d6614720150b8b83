// Amazon S3 and S3-compatible stores (MinIO, moto, Ceph RGW, ...) through
// their REST API by hand: ListObjectsV2 with continuation tokens, GetObject
// (whole or a Range, with If-Match on the listed ETag), each request signed
// with AWS Signature V4 (sigv4.h) unless no access key is known (public
// buckets). Where requests go: the URL's endpoint (s3://host:port/...,
// always path-style), else AWS_ENDPOINT_URL (path-style), else AWS itself,
// https://<bucket>.s3.<region>.amazonaws.com (virtual-host style), or
// path-style https://s3.<region>.amazonaws.com/<bucket> for bucket names
// that are no DNS label (dots, capitals). Credentials: cloud_credentials.h,
// then the AWS shared credentials file (AWS_SHARED_CREDENTIALS_FILE or
// ~/.aws/credentials, profile AWS_PROFILE or "default").
#ifndef INFERD_CORE_CLOUD_S3_STORE_H_
#define INFERD_CORE_CLOUD_S3_STORE_H_

#include <ctime>
#include <functional>
#include <memory>

#include "core/cloud/store_registry.h"

namespace inferd {

// The store of an s3:// URL (store_registry.h's OpenStoreFn).
StatusOr<std::unique_ptr<ObjectStore>> OpenS3Store(const CloudUrl& url,
                                                    const StoreContext& context);

// The same with the credentials given and the wall clock the signatures are
// dated with (tests).
std::unique_ptr<ObjectStore> MakeS3Store(const CloudUrl& url, S3Credentials credentials,
                                         const HttpClient* http,
                                         std::function<std::time_t()> now);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_S3_STORE_H_
