// The repository URLs Triton accepts for object stores, parsed:
//   s3://bucket/path                      AWS S3 (region and endpoint from the credentials)
//   s3://host:port/bucket/path            an S3-compatible endpoint over HTTP
//   s3://https://host:port/bucket/path    the same over HTTPS (http:// also accepted)
//   gs://bucket/path                      Google Cloud Storage
//   as://account/container/path           Azure Blob Storage
// The path (the repository's root inside the bucket) may be empty.
#ifndef INFERD_CORE_CLOUD_CLOUD_URL_H_
#define INFERD_CORE_CLOUD_CLOUD_URL_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

struct CloudUrl {
  std::string scheme;    // "s3", "gs" or "as"
  // s3 only: "http://host:port" or "https://host:port" when the URL names an
  // endpoint; empty for the cloud's own (AWS_ENDPOINT_URL may still set one).
  std::string endpoint;
  std::string account;   // as only: the storage account
  std::string bucket;    // the bucket (s3, gs) or container (as)
  std::string prefix;    // the repository's root inside it: no leading or trailing '/'
  std::string text;      // the URL as written, without a trailing '/'

  // The root as "<prefix>/", or "" when the repository is the whole bucket:
  // what a listing's keys start with.
  std::string RootPrefix() const { return prefix.empty() ? "" : prefix + "/"; }
};

// Whether `path` starts with one of the schemes above (then it is not a local folder).
bool IsCloudUrl(std::string_view path);

// `url` parsed; INVALID_ARG naming the URL and what is wrong with it.
StatusOr<CloudUrl> ParseCloudUrl(std::string_view url);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CLOUD_URL_H_
